package fleet

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// startNATS starts a real nats-server with JetStream on a loopback port.
func startNATS(t testing.TB) string { return testkit.StartNATS(t) }

func TestClaimRenewFinish(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 3*time.Second)
	r := submit(t, f, Spec{Kind: Workflow, Repo: "/tmp/r.git", Task: "Add Sub"})
	cl := claimNext(t, f, "w1")
	if cl.Run.ID != r.ID || cl.Run.State != Running || cl.Run.Worker != "w1" || cl.Run.Attempts != 1 {
		t.Fatalf("claimed %+v", cl.Run)
	}
	if _, err := f.Stop(ctx, r.ID); err != nil {
		t.Fatal(err)
	}
	stop, err := cl.Renew(ctx)
	if err != nil || !stop {
		t.Fatalf("renew after a stop = %v, %v; want a stop asked", stop, err)
	}
	if err := cl.Record(ctx, func(r *Run) { r.Branch = "autarch/sub"; r.Commits = append(r.Commits, "abc") }); err != nil {
		t.Fatal(err)
	}
	if err := cl.Finish(ctx, Completed, "done"); err != nil {
		t.Fatal(err)
	}
	got, err := f.Get(ctx, r.ID)
	if err != nil || got.State != Completed || got.Branch != "autarch/sub" || !slices.Equal(got.Commits, []string{"abc"}) {
		t.Fatalf("record = %+v, %v", got, err)
	}
	info, err := f.queue.Info(ctx)
	if err != nil || info.State.Msgs != 0 {
		t.Errorf("queue after finish holds %d messages (%v)", info.State.Msgs, err)
	}
}

// claimThenTakeOver: w1 claims the one queued run and never renews; w2
// takes it over once the lease has run out; between, when set, is called
// with w1's claim before w2 tries.
func claimThenTakeOver(t *testing.T, f *Fleet, between func(dead *Claim)) (dead, taken *Claim) {
	t.Helper()
	ctx := context.Background()
	c1, c2 := newClaimer(t, f, "w1"), newClaimer(t, f, "w2")
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var err error
	if dead, err = c1.Next(cctx); err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between(dead)
	}
	if taken, err = c2.Next(cctx); err != nil {
		t.Fatal(err)
	}
	return dead, taken
}

// A worker that stops renewing loses the run to the next worker after
// its lease; its late result is refused by the record's revision check.
func TestExpiredLeaseIsTakenOverAndLateResultRefused(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), time.Second)
	r := submit(t, f, Spec{Kind: Job, Repo: "/tmp/r.git", Task: "Fix it"})
	dead, taken := claimThenTakeOver(t, f, nil)
	if taken.Run.ID != r.ID || taken.Run.Worker != "w2" || taken.Run.Attempts != 2 || taken.TakenOver != "w1" {
		t.Fatalf("takeover = %+v (from %q)", taken.Run, taken.TakenOver)
	}
	if err := dead.Finish(ctx, Completed, "late"); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("late finish = %v, want ErrLeaseLost", err)
	}
	if _, err := dead.Renew(ctx); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("late renew = %v, want ErrLeaseLost", err)
	}
	if err := taken.Finish(ctx, Completed, "done"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Get(ctx, r.ID); got.State != Completed || got.Reason != "done" {
		t.Errorf("record = %+v", got)
	}
}

// A run goes only to workers that have all its labels.
func TestLabelsRouteRuns(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 5*time.Second)
	gpu := submit(t, f, Spec{Repo: "/r.git", Task: "t", Labels: []string{"gpu", "linux"}})
	plain := newClaimer(t, f, "plain", "linux")
	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	if cl, err := plain.Next(short); err == nil {
		t.Fatalf("a worker without the gpu label claimed %+v", cl.Run)
	}
	cctx, cancel2 := context.WithTimeout(ctx, 10*time.Second)
	defer cancel2()
	cl, err := newClaimer(t, f, "big", "gpu", "linux", "x86").Next(cctx)
	if err != nil || cl.Run.ID != gpu.ID {
		t.Fatalf("claim = %v, %v", cl, err)
	}
}

func TestEventsFollowInOrder(t *testing.T) {
	ctx := context.Background()
	f := openFleet(t, startNATS(t), 5*time.Second)
	ref := kernel.Ref{Kind: kernel.KindJob, ID: NewID()}
	for _, text := range []string{"one", "two", "three"} {
		if err := f.Publish(ctx, kernel.Event{Run: ref, Kind: kernel.EventMessage, Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := f.Follow(cctx, ref.ID, func(ev kernel.Event) bool {
		got = append(got, ev.Text)
		return len(got) < 3
	})
	if err != nil || !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Fatalf("followed %q, %v", got, err)
	}
}

func TestParseLabels(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"b,a,b", []string{"a", "b"}, true},
		{"GPU", nil, false},
		{"a.b", nil, false},
		{"a,b,c,d,e,f,g", nil, false},
	} {
		got, err := ParseLabels(tc.in)
		if (err == nil) != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("ParseLabels(%q) = %q, %v", tc.in, got, err)
		}
	}
	if n := len(subsets([]string{"a", "b", "c"})); n != 8 {
		t.Errorf("subsets of 3 labels = %d", n)
	}
}
