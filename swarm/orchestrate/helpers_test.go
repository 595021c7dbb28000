package orchestrate

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// openProject opens the repository whose work tree is work and the
// project's embedded NATS, which is closed when the test ends.
func openProject(t testing.TB, work string) (*git.Repo, OpenEngine) {
	t.Helper()
	ctx := context.Background()
	repo, err := git.Open(ctx, work, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	open, closeNATS, err := ConnectNATS(ctx, repo.StateDir(), tools.SwarmConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeNATS)
	return repo, open
}

// newOrchestrator is New on the world's repository and NATS engine
// (cfg's Repo and Open are set here), failing the test if it cannot.
func (w *world) newOrchestrator(cfg Config) *Orchestrator {
	w.t.Helper()
	cfg.Repo, cfg.Open = w.repo, w.open
	o, err := New(cfg)
	if err != nil {
		w.t.Fatal(err)
	}
	return o
}

// startSwarm starts a swarm with opts on o, failing the test if it
// cannot; the swarm has not run yet.
func startSwarm(t testing.TB, o *Orchestrator, opts Options) *State {
	t.Helper()
	st, err := o.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// runToDone starts a swarm with opts on o and runs it, failing the test
// unless the run ends done.
func runToDone(t testing.TB, o *Orchestrator, opts Options) *State {
	t.Helper()
	st, err := o.Run(context.Background(), startSwarm(t, o, opts).ID)
	if err != nil || st.Status != StatusDone {
		t.Fatalf("run: %v (%s: %s)", err, st.Status, st.Reason)
	}
	return st
}
