package workflow_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestHaltComesOnceTheRunLetGo: the halt event that ends a run is told
// once the run has released the workflow's run lock, so that an editor
// reverting or redoing a pulse the moment the workflow is Completed is not
// refused as if another autarch process ran it (server
// TestRevertRedoOverLSP failed so under load: the halt was told while the
// run still held the lock, tearing down its worktree and servers).
func TestHaltComesOnceTheRunLetGo(t *testing.T) {
	sc := testkit.LoadScenario(t, "testdata/scenarios/quick-path.txt")
	var cfg scenarioConfig
	sc.Decode(t, &cfg, nil)
	h := newHarness(t, sc, cfg)
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	locks := run.NewLocks(filepath.Join(h.repo.StateDir(), "locks"))
	lock := run.Ref{Kind: run.KindWorkflow, ID: wf.ID}.LockName()
	var halts []string
	h.onEvent = func(ev workflow.Event) { // under h.mu
		if ev.Kind == "halt" {
			halts = append(halts, fmt.Sprintf("%s, lock held %v", ev.Status, locks.Held(lock)))
		}
	}
	wf, err = h.engine.Run(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("run: %s %s (%s), %v", wf.Stage, wf.Status, wf.StatusReason, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if want := []string{"Completed, lock held false"}; !slices.Equal(halts, want) {
		t.Errorf("halt events = %q, want %q", halts, want)
	}
}
