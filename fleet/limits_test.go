package fleet

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// Two workers (two connections) share one endpoint's limit through the
// bucket: their requests are spaced a minute/RPM apart, whoever sends
// them, and the k-th request goes no earlier than k slots after the
// first.
func TestTwoWorkersShareOneRateLimit(t *testing.T) {
	ctx := context.Background()
	url := startNATS(t)
	w1, w2 := openFleet(t, url, 3*time.Second), openFleet(t, url, 3*time.Second)
	if err := w1.SetRate(ctx, Rate{RPM: 600}); err != nil {
		t.Fatal(err)
	}
	lim, err := w2.Rate(ctx) // the other worker reads the fleet's setting
	if err != nil || lim != (Rate{RPM: 600}) {
		t.Fatalf("rate = %+v, %v; want 600 requests/min", lim, err)
	}
	key := EndpointKey("127.0.0.1:8080", "gpt-4.1")
	const each = 4
	interval := time.Minute / 600
	var mu sync.Mutex
	var sent []time.Time
	by := map[*Fleet]int{}
	waits := 0
	start := time.Now()
	var wg sync.WaitGroup
	for _, f := range []*Fleet{w1, w2} {
		wg.Go(func() {
			for range each {
				err := f.WaitRate(ctx, key, lim, func(time.Duration) { mu.Lock(); waits++; mu.Unlock() })
				now := time.Now()
				mu.Lock()
				if err != nil {
					t.Error(err)
				}
				sent = append(sent, now)
				by[f]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(sent, func(a, b time.Time) int { return a.Compare(b) })
	for k, at := range sent {
		if earliest := start.Add(time.Duration(k) * interval); at.Before(earliest.Add(-5 * time.Millisecond)) {
			t.Errorf("request %d went %v after the first slot, before its slot %v: the limit is not shared", k, at.Sub(start), time.Duration(k)*interval)
		}
	}
	if by[w1] != each || by[w2] != each || waits < 2*each-2 {
		t.Errorf("requests per worker %v, %d waits announced; want %d each, nearly all waiting", by, waits, each)
	}
}

// Tokens spent beyond a minute's TPM hold the next request back until
// the debt is within a minute again; a request with no limit never waits.
func TestTokensPerMinuteHoldRequestsBack(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 3*time.Second)
	key := EndpointKey("api.example.com", "m")
	lim := Rate{TPM: 60000} // a token a millisecond
	if err := f.WaitRate(ctx, key, lim, func(d time.Duration) { t.Errorf("the first request waited %v", d) }); err != nil {
		t.Fatal(err)
	}
	if err := f.Spend(ctx, key, lim, 60000+300); err != nil { // a minute and 300 ms of tokens
		t.Fatal(err)
	}
	at, err := f.Reserve(ctx, key, lim)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Until(at); d < 200*time.Millisecond || d > 400*time.Millisecond {
		t.Errorf("after a minute and 300 ms of tokens the next request waits %v, want about 300ms", d)
	}
	if err := f.WaitRate(ctx, "other", Rate{}, func(d time.Duration) { t.Errorf("an unlimited request waited %v", d) }); err != nil {
		t.Fatal(err)
	}
}
