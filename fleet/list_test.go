package fleet

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Runs, Workers and Budgets list every record of their bucket, in their
// order (runs oldest first, workers and budgets by name).
func TestListings(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 3*time.Second)
	first := submit(t, f, Spec{Kind: Job, Repo: "/tmp/r.git", Task: "one"})
	second := submit(t, f, Spec{Kind: Workflow, Repo: "/tmp/r.git", Task: "two"})
	for _, name := range []string{"w2", "w1"} {
		if err := f.Beat(ctx, Worker{Name: name}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"bob", "alice"} {
		if _, err := f.SetBudget(ctx, name, 0, 1000, false); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := f.Runs(ctx)
	if err != nil || len(runs) != 2 || runs[0].ID != first.ID || runs[1].ID != second.ID {
		t.Errorf("runs = %+v, %v; want %s then %s", runs, err, first.ID, second.ID)
	}
	workers, err := f.Workers(ctx)
	if err != nil || len(workers) != 2 || workers[0].Name != "w1" || workers[1].Name != "w2" {
		t.Errorf("workers = %+v, %v; want w1, w2", workers, err)
	}
	budgets, err := f.Budgets(ctx)
	if err != nil || len(budgets) != 2 || budgets[0].Submitter != "alice" || budgets[1].Submitter != "bob" || budgets[0].Tokens != 1000 {
		t.Errorf("budgets = %+v, %v; want alice, bob with 1000 tokens each", budgets, err)
	}
}

// The fleet's buckets are on file, with their history and TTL.
func TestBuckets(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 3*time.Second)
	for _, tc := range []struct {
		kv      jetstream.KeyValue
		history int64
		ttl     time.Duration
	}{
		{f.runs, 5, 0},
		{f.workers, 1, 24 * time.Hour},
		{f.limits, 1, 0},
		{f.rates, 1, time.Hour},
	} {
		st, err := tc.kv.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		cfg := st.(*jetstream.KeyValueBucketStatus).StreamInfo().Config
		if st.History() != tc.history || st.TTL() != tc.ttl || cfg.Storage != jetstream.FileStorage || cfg.Replicas != 1 {
			t.Errorf("%s: history %d, TTL %v, storage %v, %d replicas; want %d, %v, file, 1", st.Bucket(), st.History(), st.TTL(), cfg.Storage, cfg.Replicas, tc.history, tc.ttl)
		}
	}
}
