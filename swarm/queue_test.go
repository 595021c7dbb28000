package swarm

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// TestEnqueueThenNext: coord_next right after coord_enqueue gets the
// item, every time (the consumer's pending count lags a publish).
func TestEnqueueThenNext(t *testing.T) {
	ctx := context.Background()
	_, s := open(t, t.TempDir(), Options{Limits: Limits{Default: Limit{Calls: 0}}})
	for i := range 500 {
		e, _ := s.Enqueue(ctx, "scan", json.RawMessage(`{"dir":"docs"}`))
		it, err := s.Next(ctx, "A", time.Minute)
		if err != nil || it == nil {
			t.Fatalf("iteration %d: %v %v", i, it, err)
		}
		if it.ID != e.ID {
			t.Fatalf("iteration %d: got %s want %s", i, it.ID, e.ID)
		}
		if err := s.Complete(ctx, "A", it.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
}
