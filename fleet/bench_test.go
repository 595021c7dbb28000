package fleet

import (
	"context"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
)

// BenchmarkClaimLatency is the time from Submit to a waiting worker's
// claim (the record moved to Running), on one local nats-server.
func BenchmarkClaimLatency(b *testing.B) {
	ctx := context.Background()
	f := openFleet(b, startNATS(b), 30*time.Second)
	c := newClaimer(b, f, "w")
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.Submit(ctx, Spec{Repo: "/r.git", Task: "t"}); err != nil {
			b.Fatal(err)
		}
		cl, err := c.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := cl.Finish(ctx, Completed, ""); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// BenchmarkEventLatency is the time from a worker's Publish of a run's
// event to the submitter's Follow receiving it.
func BenchmarkEventLatency(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := openFleet(b, startNATS(b), 30*time.Second)
	ref := kernel.Ref{Kind: kernel.KindJob, ID: NewID()}
	got := make(chan struct{}, 1)
	go f.Follow(ctx, ref.ID, func(kernel.Event) bool { got <- struct{}{}; return true })
	// the follower is subscribed once a first event arrives
	f.Publish(ctx, kernel.Event{Run: ref, Kind: kernel.EventMessage, Text: "warm"})
	<-got
	b.ResetTimer()
	for b.Loop() {
		if err := f.Publish(ctx, kernel.Event{Run: ref, Kind: kernel.EventMessage, Text: "x"}); err != nil {
			b.Fatal(err)
		}
		<-got
	}
}
