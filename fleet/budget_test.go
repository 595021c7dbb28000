package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// A submitter over its fleet budget gets no run claimed: the run stays
// queued and its record says why and what to do; once the budget is
// raised, a worker claims it. Two workers adding spend at once lose
// nothing (revision checks).
func TestOverBudgetRunIsNotClaimed(t *testing.T) {
	ctx := context.Background()
	url := startNATS(t)
	f, other := openFleet(t, url, 3*time.Second), openFleet(t, url, 3*time.Second)
	if _, err := f.SetBudget(ctx, "alice", 0, 1000, false); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	for _, w := range []*Fleet{f, other} {
		go func() {
			for range 10 {
				if err := w.AddSpend(ctx, "alice", kernel.Usage{PromptTokens: 50, CompletionTokens: 10, Cost: 0.01}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	b, err := f.Budget(ctx, "alice")
	if err != nil || b.Spent.Tokens() != 1200 || b.Over() == "" {
		t.Fatalf("budget = %+v, %v; want 1200 tokens spent of 1000", b, err)
	}
	var over *OverBudgetError
	if err := other.CheckBudget(ctx, "alice"); !errors.As(err, &over) || !strings.Contains(err.Error(), "autarch fleet budget alice") {
		t.Errorf("check = %v, want over budget with the fix", err)
	}
	if err := f.CheckBudget(ctx, "bob"); err != nil {
		t.Errorf("bob has no budget: %v", err)
	}

	r := submit(t, f, Spec{Kind: Job, Repo: "/tmp/r.git", Task: "Add Sub", Submitter: "alice"})
	c := newClaimer(t, other, "w1")
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	claimed := make(chan *Claim, 1)
	go func() {
		cl, err := c.Next(cctx)
		if err != nil {
			t.Error(err)
		}
		claimed <- cl
	}()
	testkit.CheckFor(t, 15*time.Second, 50*time.Millisecond, func() error {
		got, err := f.Get(ctx, r.ID)
		if err != nil {
			return err
		}
		if got.State != Queued || got.Worker != "" {
			t.Fatalf("the run of a submitter over budget was claimed: %+v", got)
		}
		if !strings.Contains(got.Reason, "alice is over its fleet budget: spent 1200 of 1000 tokens") {
			return fmt.Errorf("the run's record does not say why it waits: %q", got.Reason)
		}
		return nil
	})
	if _, err := f.SetBudget(ctx, "alice", 0, 5000, false); err != nil {
		t.Fatal(err)
	}
	cl := <-claimed
	if cl == nil || cl.Run.ID != r.ID || cl.Run.Reason != "" {
		t.Fatalf("after the budget was raised, claimed %+v", cl)
	}
}
