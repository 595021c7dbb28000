package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// leaseWorld is a store whose clock the test moves, with one workflow and
// one pulse.
func leaseWorld(t *testing.T) (*Store, *time.Time, Workflow, Pulse) {
	t.Helper()
	now := fixed
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), FileName), Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w := newWorkflow(t, s, "leases")
	p := Pulse{WorkflowID: w.ID, PlannedID: "pulse-1", Title: "One"}
	if err := s.AddPulse(context.Background(), &p); err != nil {
		t.Fatal(err)
	}
	return s, &now, w, p
}

func TestLeases(t *testing.T) {
	ctx := context.Background()
	s, now, w, p := leaseWorld(t)
	const d = 30 * time.Second
	l, err := s.AcquireLease(ctx, p.ID, w.ID, "a", 1, d)
	if err != nil || l.Holder != "a" || l.Lane != 1 || !l.Until.Equal(fixed.Add(d)) {
		t.Fatalf("first lease = %+v, %v", l, err)
	}
	// Another holder is refused while the lease runs, and told who holds it.
	_, err = s.AcquireLease(ctx, p.ID, w.ID, "b", 2, d)
	var le *LeaseError
	if !errors.As(err, &le) || !errors.Is(err, ErrLeased) || le.Lease.Holder != "a" {
		t.Fatalf("second holder: %v, want ErrLeased naming a", err)
	}
	// The holder extends and re-acquires its own lease.
	*now = now.Add(20 * time.Second)
	if err := s.ExtendLease(ctx, p.ID, "a", d); err != nil {
		t.Fatal(err)
	}
	if err := s.ExtendLease(ctx, p.ID, "b", d); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("a non-holder extended: %v", err)
	}
	if err := s.SetWaiting(ctx, p.ID, "a", "abc"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWaiting(ctx, p.ID, "b", "abc"); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("a non-holder recorded a waiting commit: %v", err)
	}
	// Past the extended end, the lease is lost: extending fails, another
	// holder takes the pulse (and its waiting commit is cleared).
	*now = now.Add(d)
	if err := s.ExtendLease(ctx, p.ID, "a", d); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("an ended lease was extended: %v", err)
	}
	if l, err = s.AcquireLease(ctx, p.ID, w.ID, "b", 2, d); err != nil || l.Holder != "b" || l.Waiting != "" {
		t.Fatalf("after the lease ended: %+v, %v", l, err)
	}
	if err := s.ReleaseLease(ctx, p.ID, "a"); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("the old holder released the new holder's lease: %v", err)
	}
	if err := s.ReleaseLease(ctx, p.ID, "b"); err != nil {
		t.Fatal(err)
	}
	// Released: anyone may take it at once.
	if _, err := s.AcquireLease(ctx, p.ID, w.ID, "c", 1, d); err != nil {
		t.Fatalf("after release: %v", err)
	}
	for i := 1; i <= 2; i++ {
		if n, err := s.AddConflict(ctx, p.ID); err != nil || n != i {
			t.Errorf("conflict %d counted as %d, %v", i, n, err)
		}
	}
	ls, err := s.Leases(ctx, w.ID)
	if err != nil || len(ls) != 1 || ls[0].Holder != "c" || ls[0].Conflicts != 2 {
		t.Errorf("leases = %+v, %v", ls, err)
	}
}

func TestLeaseRefusals(t *testing.T) {
	ctx := context.Background()
	s, _, w, p := leaseWorld(t)
	for _, c := range []struct {
		name   string
		holder string
		d      time.Duration
	}{{"no holder", "", time.Second}, {"no duration", "a", 0}, {"negative duration", "a", -time.Second}} {
		if _, err := s.AcquireLease(ctx, p.ID, w.ID, c.holder, 1, c.d); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if _, err := s.AcquireLease(ctx, "pulse-nope", w.ID, "a", 1, time.Second); err == nil {
		t.Error("a lease on an unknown pulse was accepted")
	}
	if _, err := s.AddConflict(ctx, p.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("conflict on a never-leased pulse: %v", err)
	}
	if n, err := s.Parallel(ctx, w.ID); err != nil || n != 1 {
		t.Errorf("default parallel = %d, %v; want 1", n, err)
	}
	if err := s.SetParallel(ctx, w.ID, 0); err == nil {
		t.Error("parallel 0 accepted")
	}
	if err := s.SetParallel(ctx, "wf-nope", 2); !errors.Is(err, ErrNotFound) {
		t.Errorf("parallel of an unknown workflow: %v", err)
	}
	if err := s.SetParallel(ctx, w.ID, 3); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Parallel(ctx, w.ID); n != 3 {
		t.Errorf("parallel = %d, want 3", n)
	}
}

// TestLeaseOneWinner: many holders race for one pulse; exactly one wins.
func TestLeaseOneWinner(t *testing.T) {
	ctx := context.Background()
	s, _, w, p := leaseWorld(t)
	var wg sync.WaitGroup
	wins := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			holder := string(rune('a' + i))
			if _, err := s.AcquireLease(ctx, p.ID, w.ID, holder, 1, time.Minute); err == nil {
				wins <- holder
			} else if !errors.Is(err, ErrLeased) {
				t.Errorf("holder %s: %v", holder, err)
			}
		}()
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Errorf("%d holders won the lease, want 1", n)
	}
}
