package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// Two workers' model clients, each with its own NATS connection and
// fleet gate, share the fleet's rate limit: the scripted model sees
// their requests spaced a minute/RPM apart, and every answer's tokens
// are added to the submitter's spend, priced by the worker.
func TestTwoWorkersModelRequestsAreSpaced(t *testing.T) {
	ctx := context.Background()
	_, urls := natsCluster(t, 1)
	const calls = 6
	var steps []string
	for i := range calls {
		steps = append(steps, fmt.Sprintf(`{"text": "answer %d", "usage": {"prompt_tokens": 100, "completion_tokens": 10}}`, i+1))
	}
	model := mustScript(t, steps...)
	var mu sync.Mutex
	var arrived []time.Time
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			mu.Lock()
			arrived = append(arrived, time.Now())
			mu.Unlock()
		}
		model.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)

	rate := fleet.Rate{RPM: 600}
	var said []string
	var workers []*openai.Model
	for range 2 {
		gate := &fleetGate{f: openFleetAt(t, urls[0]), rate: rate, submitter: "alice", pricing: agent.Pricing{PromptPerMillion: 10, CompletionPerMillion: 100},
			say: func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }, stop: func(error) {}, log: slog.New(slog.DiscardHandler)}
		workers = append(workers, openai.New(openai.Config{BaseURL: hs.URL + "/v1", APIKey: "sk-test", Gate: gate}))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, m := range workers {
		wg.Go(func() {
			for range calls / 2 {
				if _, err := m.Complete(ctx, agent.Request{Model: "scripted", Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}}, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, e := range model.Errors() {
		t.Errorf("scripted model: %s", e)
	}
	slices.SortFunc(arrived, func(a, b time.Time) int { return a.Compare(b) })
	interval := time.Minute / time.Duration(rate.RPM)
	for k, at := range arrived {
		if slot := time.Duration(k) * interval; at.Sub(start) < slot-5*time.Millisecond {
			t.Errorf("request %d arrived %v after the start, before its slot at %v", k, at.Sub(start), slot)
		}
	}
	if len(arrived) != calls || len(said) < 2 || !strings.Contains(said[0], "waiting for the fleet's rate limit (600 requests/min on 127.0.0.1:") {
		t.Errorf("%d requests arrived; the runs said %q", len(arrived), said)
	}
	b, err := openFleetAt(t, urls[0]).Budget(ctx, "alice")
	if want := int64(calls * 110); err != nil || b.Spent.Tokens() != want || b.Spent.Cost < 0.0119 || b.Spent.Cost > 0.0121 {
		t.Errorf("alice's spend = %+v, %v; want %d tokens, $0.012", b.Spent, err, want)
	}
}

// openFleetAt opens the fleet on its own connection to url, as a worker
// on its own machine does.
func openFleetAt(t *testing.T, url string) *fleet.Fleet {
	t.Helper()
	return openFleetWith(context.Background(), t, url, fleet.Options{})
}

// openFleetWith opens the fleet with opts on a connection of its own to
// url (with natsOpts), closed when the test ends.
func openFleetWith(ctx context.Context, t *testing.T, url string, opts fleet.Options, natsOpts ...nats.Option) *fleet.Fleet {
	t.Helper()
	nc, js := testkit.ConnectJetStream(t, url, natsOpts...)
	f, err := fleet.Open(ctx, nc, js, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
