package orchestrate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
)

// meeting holds the first model call of each of the first n agents that
// call until all n have called (a barrier), or fails the call after
// 20 s: turns taken one after another never meet. It also counts the
// calls in flight.
type meeting struct {
	n   int
	all chan struct{}

	mu            sync.Mutex
	arrived       map[string]bool
	inFlight, max int
}

func newMeeting(n int) *meeting {
	return &meeting{n: n, all: make(chan struct{}), arrived: map[string]bool{}}
}

// at is agent's model m, held at the meeting.
func (mt *meeting) at(agentName string, m agent.Model) agent.Model {
	return meetingModel{mt: mt, agent: agentName, m: m}
}

type meetingModel struct {
	mt    *meeting
	agent string
	m     agent.Model
}

func (mm meetingModel) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	mt := mm.mt
	mt.mu.Lock()
	wait := !mt.arrived[mm.agent] && len(mt.arrived) < mt.n
	if wait {
		mt.arrived[mm.agent] = true
		if len(mt.arrived) == mt.n {
			close(mt.all)
		}
	}
	mt.inFlight++
	mt.max = max(mt.max, mt.inFlight)
	mt.mu.Unlock()
	defer func() { mt.mu.Lock(); mt.inFlight--; mt.mu.Unlock() }()
	if wait {
		select {
		case <-mt.all:
		case <-time.After(20 * time.Second):
			return agent.Response{}, fmt.Errorf("%s's first model call waited 20 s for the other agents' (the turns did not run at once)", mm.agent)
		case <-ctx.Done():
			return agent.Response{}, ctx.Err()
		}
	}
	return mm.m.Complete(ctx, req, onText)
}

// TestConcurrentRound: two agents take their turns at once (their first
// model calls meet at a barrier, which fails the run when the turns run
// one after another). The token budget is spent by the first answer: the
// other call, in flight, finishes and counts, no agent calls again, and
// the swarm stops resumable with both answers saved. The resumed run ends
// both turns; the arbiter approves both proposals; each agent's events
// are in its own order in the transcript.
func TestConcurrentRound(t *testing.T) {
	w := newWorld(t, "concurrent")
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}, {Name: "tester", Role: RoleTester}}
	mt := newMeeting(2)
	arb := func(string) Arbiter { return ModelArbiter{Model: w.model("arbiter"), ModelName: "arbiter-model"} }
	var mu sync.Mutex
	inEvents := 0
	o := w.newOrchestrator(Config{TokenBudget: 100, Arbiter: arb,
		Models: map[string]agent.Model{"explorer": mt.at("explorer", w.model("explorer")), "tester": mt.at("tester", w.model("tester"))},
		Events: func(editor.SwarmEvent) {
			if !mu.TryLock() {
				t.Error("Events called while another call runs")
				return
			}
			inEvents++
			mu.Unlock()
		}})
	ctx := context.Background()
	st := startSwarm(t, o, Options{Task: "write the docs", Agents: agents, Rounds: 1, Arbiter: "arbiter-model", AllowWrite: true})
	st, err := o.Run(ctx, st.ID)
	if err != nil || st.Status != StatusStopped || !strings.Contains(st.Reason, "token budget spent: 220 tokens this run (budget 100)") {
		t.Fatalf("run: %v; %s: %s; want stopped with both calls in flight counted (220 tokens)", err, st.Status, st.Reason)
	}
	if mt.max != 2 {
		t.Errorf("%d model calls in flight at most, want 2", mt.max)
	}
	if st.Stage != stageAgents || len(st.Done) != 0 || st.Tokens != 220 {
		t.Errorf("stopped at %s with %v done, %d tokens; want the agents stage, no turn ended, 220", st.Stage, st.Done, st.Tokens)
	}
	for _, a := range agents {
		if n := w.models[a.Name].Remaining(); n != 1 {
			t.Errorf("%s: %d steps left, want 1 (no call after the budget was spent)", a.Name, n)
		}
	}

	// Resumed with a new budget (another process: a new orchestrator).
	o2 := w.newOrchestrator(Config{Arbiter: arb,
		Models: map[string]agent.Model{"explorer": w.model("explorer"), "tester": w.model("tester")}})
	if st, err = o2.Run(ctx, st.ID); err != nil || st.Status != StatusDone {
		t.Fatalf("resume: %v (%s: %s)", err, st.Status, st.Reason)
	}
	if st.Tokens != 240 {
		t.Errorf("tokens over both runs = %d, want 240", st.Tokens)
	}
	got := map[string]string{}
	for _, p := range st.Proposals {
		got[p.Path] = p.Agent + ":" + p.Action
	}
	if len(st.Proposals) != 2 || got["docs/explorer.md"] != "explorer:approve" || got["docs/tester.md"] != "tester:approve" {
		t.Errorf("proposals = %+v", st.Proposals)
	}
	for _, f := range []string{"docs/explorer.md", "docs/tester.md"} {
		if _, ok := fileIn(t, st.Worktree, f); !ok {
			t.Errorf("%s not applied in the swarm's worktree", f)
		}
	}
	if len(st.Commits) != 1 {
		t.Errorf("commits = %v, want one for the round", st.Commits)
	}

	tr, err := Transcript(w.repo.StateDir(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range agents {
		var seq []string
		for _, ev := range tr {
			if ev.Agent == a.Name && (ev.Kind == "tool_call" || ev.Kind == "tool_result" || ev.Kind == "text") {
				seq = append(seq, ev.Kind)
			}
		}
		if want := []string{"tool_call", "tool_result", "text"}; !slices.Equal(seq, want) {
			t.Errorf("%s's transcript events %v, want %v", a.Name, seq, want)
		}
	}
	if inEvents == 0 {
		t.Error("no event reached Events")
	}
}

// TestConcurrencyBound: three agents, at most two at once.
func TestConcurrencyBound(t *testing.T) {
	w := newWorld(t, "bounded")
	agents := []editor.SwarmAgent{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	mt := newMeeting(2)
	models := map[string]agent.Model{}
	for _, a := range agents {
		models[a.Name] = mt.at(a.Name, w.model(a.Name))
	}
	o := w.newOrchestrator(Config{Models: models, Concurrency: 2, Arbiter: func(string) Arbiter { return NewInbox() }})
	runToDone(t, o, Options{Task: "say done", Agents: agents, Rounds: 1, Arbiter: "human"})
	if mt.max != 2 {
		t.Errorf("%d model calls in flight at most, want 2", mt.max)
	}
	if o.concurrency(3) != 2 || (&Orchestrator{}).concurrency(9) != DefaultConcurrency || (&Orchestrator{}).concurrency(2) != 2 {
		t.Errorf("concurrency: %d of 3 with 2, default of 9 %d, default of 2 %d", o.concurrency(3), (&Orchestrator{}).concurrency(9), (&Orchestrator{}).concurrency(2))
	}
}
