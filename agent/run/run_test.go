package run_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
)

func TestLocks(t *testing.T) {
	locks := run.NewLocks(filepath.Join(t.TempDir(), "locks"))
	job := run.Ref{Kind: run.KindJob, ID: "abc"}
	if job.LockName() != "job-abc" || (run.Ref{Kind: run.KindWorkflow, ID: "wf-1"}).LockName() != "wf-1" {
		t.Fatalf("lock names: %q", job.LockName())
	}
	if locks.Held(job.LockName()) {
		t.Fatal("a lock never taken is held")
	}
	unlock, err := locks.Take(job.LockName())
	if err != nil {
		t.Fatal(err)
	}
	if !locks.Held(job.LockName()) {
		t.Error("a taken lock is not held")
	}
	if _, err := locks.Take(job.LockName()); !run.IsLocked(err) {
		t.Errorf("taking a held lock: %v, want ErrLocked", err)
	}
	if _, err := run.Lock(locks.Path(job.LockName()), 50*time.Millisecond); !run.IsLocked(err) {
		t.Errorf("waiting for a held lock: %v, want ErrLocked", err)
	}
	if ran, err := locks.IfFree(job.LockName(), func() error { return errors.New("ran") }); ran || err != nil {
		t.Errorf("IfFree of a held lock: ran %v, %v; want it left alone", ran, err)
	}
	unlock()
	if locks.Held(job.LockName()) {
		t.Error("a released lock is held")
	}
	errRan := errors.New("ran")
	if ran, err := locks.IfFree(job.LockName(), func() error {
		if !locks.Held(job.LockName()) {
			t.Error("IfFree runs fn without the lock")
		}
		return errRan
	}); !ran || !errors.Is(err, errRan) {
		t.Errorf("IfFree of a free lock: ran %v, %v; want fn's error", ran, err)
	}
	unlock, err = locks.Take(job.LockName())
	if err != nil {
		t.Fatalf("retake a released lock: %v", err)
	}
	unlock()
}

func TestWatchStopAndActive(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var a run.Active
	remove, ok := a.Add("r1", cancel)
	if _, again := a.Add("r1", cancel); !ok || again {
		t.Fatalf("Add: first %v, second %v; want only the first", ok, again)
	}
	stopped := make(chan struct{})
	polls := 0
	go func() {
		run.WatchStop(ctx, time.Millisecond, func(context.Context) bool { polls++; return polls == 3 }, func() { close(stopped) })
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("WatchStop did not cancel")
	}
	errStop := errors.New("stopped")
	if a.Cancel("other", errStop) {
		t.Error("cancelled a run that does not run")
	}
	if !a.Cancel("r1", errStop) || !errors.Is(context.Cause(ctx), errStop) {
		t.Errorf("cancel of a running run: cause %v", context.Cause(ctx))
	}
	remove()
	if a.Cancel("r1", errStop) {
		t.Error("cancelled a removed run")
	}
}

func TestClaims(t *testing.T) {
	var c run.Claims
	n := 0
	c.Put("j", func() { n++ })
	unlock, ok := c.Claim("j")
	if !ok {
		t.Fatal("no claim")
	}
	unlock()
	if _, ok := c.Claim("j"); ok || n != 1 {
		t.Errorf("claimed twice (%v) or unlock not handed over (%d)", ok, n)
	}
}

func TestGroup(t *testing.T) {
	var g run.Group
	ended := make(chan error, 1)
	if err := g.Go(context.Background(), func(ctx context.Context) { <-ctx.Done(); ended <- ctx.Err() }); err != nil {
		t.Fatal(err)
	}
	if !g.Close(10 * time.Second) {
		t.Fatal("the group's work did not end on Close")
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("work ended with %v, want cancelled", err)
	}
	if err := g.Go(context.Background(), func(context.Context) {}); !errors.Is(err, run.ErrClosing) {
		t.Errorf("Go after Close: %v, want ErrClosing", err)
	}
	var stuck run.Group
	release := make(chan struct{})
	defer close(release)
	stuck.Go(context.Background(), func(context.Context) { <-release })
	if stuck.Close(10 * time.Millisecond) {
		t.Error("Close reported work that ignores cancellation as ended")
	}
}

func TestBudget(t *testing.T) {
	spent := run.Spent{Usage: run.Usage{PromptTokens: 900, CompletionTokens: 100, Cost: 0.5}, Iterations: 4}
	for _, tc := range []struct {
		name   string
		budget run.Budget
		want   run.Limit
	}{
		{"none", run.Budget{}, ""},
		{"under", run.Budget{Tokens: 2000, Iterations: 5, Dollars: 1}, ""},
		{"iterations first", run.Budget{Tokens: 1000, Iterations: 4}, run.LimitIterations},
		{"tokens", run.Budget{Tokens: 1000, Iterations: 5}, run.LimitTokens},
		{"dollars", run.Budget{Dollars: 0.5}, run.LimitDollars},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.budget.Check(spent)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("limit %v reached, want none", err)
				}
				return
			}
			if err == nil || err.Limit != tc.want {
				t.Fatalf("limit %v, want %s", err, tc.want)
			}
		})
	}
	got := run.Budget{Tokens: 1000, Iterations: 10}.Grant(spent, run.Budget{Tokens: 500, Iterations: 7})
	if got != (run.Budget{Tokens: 1500, Iterations: 10}) {
		t.Errorf("granted %+v, want tokens raised to spent+500, iterations kept", got)
	}
}

func TestMeter(t *testing.T) {
	m := run.NewMeter(run.Budget{Tokens: 250}, run.Spent{Usage: run.Usage{PromptTokens: 100}, Iterations: 1})
	u := run.UsageOf(agent.Usage{PromptTokens: 100, CompletionTokens: 50}, agent.Pricing{PromptPerMillion: 1e6})
	if u.Cost != 100 || u.Tokens() != 150 {
		t.Fatalf("usage %+v", u)
	}
	if err := m.Check(); err != nil {
		t.Fatalf("under budget: %v", err)
	}
	s := m.Record(u)
	if s.Iterations != 2 || s.Tokens() != 250 || m.Spent() != s {
		t.Errorf("spent %+v", s)
	}
	var limit *run.LimitError
	if err := m.Check(); !errors.As(err, &limit) || limit.Limit != run.LimitTokens {
		t.Errorf("spent budget: %v, want the token limit", err)
	}
}

func TestFromAgent(t *testing.T) {
	ref := run.Ref{Kind: run.KindJob, ID: "j1"}
	ev := run.FromAgent(ref, agent.Event{Kind: "tool_result", Tool: "read_file", CallID: "c2", Parent: "c1", Subagent: "explore", Failed: true})
	if ev.Kind != run.EventToolResult || ev.Outcome != run.OutcomeFailed || ev.ParentCallID != "c1" || ev.CallID != "c2" || !ev.Failed() || ev.Run != ref {
		t.Errorf("event %+v", ev)
	}
	if ev := run.FromAgent(ref, agent.Event{Kind: "text", Text: "hi"}); ev.Outcome != "" || ev.Text != "hi" {
		t.Errorf("text event %+v", ev)
	}
	var got []run.Event
	run.Emitter(func(e run.Event) { got = append(got, e) }).Emit(run.Event{Kind: run.EventStatus})
	run.Emitter(nil).Emit(run.Event{Kind: run.EventStatus})
	if len(got) != 1 || got[0].At.IsZero() {
		t.Errorf("emitted %+v", got)
	}
	n := 0
	run.Send(func(int) { n++ }, 1)
	run.Send[int](nil, 1)
	if n != 1 {
		t.Errorf("Send called the sink %d times, want 1", n)
	}
}
