package workflow_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestParallelPulsesReceipts: pulses run in parallel carry their receipts
// on the commits that landed (rebased or not), and the engine reads them
// for the side panel (PulseReceipt).
func TestParallelPulsesReceipts(t *testing.T) {
	router, url := newPulseRouter(t, parallelMain(diamondPlan), diamondSteps(), "pulse-2", "pulse-3")
	w := newParallelWorld(t, url, goRepo)
	wf := w.complete(t, workflow.Task{Text: "add the parts", Name: "parts", Parallel: 2})
	ctx := context.Background()
	router.check()
	commits := strings.Fields(testkit.Git(t, w.dir, "rev-list", "--reverse", wf.BaseCommit+".."+git.WorkflowBranch(wf.Name)))
	if len(commits) != 4 {
		t.Fatalf("commits = %v", commits)
	}
	byCommit := map[string]string{}
	for i := 1; i <= 4; i++ {
		id := fmt.Sprintf("pulse-%d", i)
		r, ok, err := w.engine.PulseReceipt(ctx, wf, id)
		if err != nil || !ok {
			t.Fatalf("PulseReceipt(%s) = %v, %v", id, ok, err)
		}
		tree := strings.TrimSpace(testkit.Git(t, w.dir, "rev-parse", r.Commit+"^{tree}"))
		if r.Kind != receipt.Pulse || r.Run.Step != id || r.Run.ID != wf.ID || r.Tree != tree || len(r.Checks) == 0 {
			t.Errorf("receipt of %s = %+v", id, r)
		}
		byCommit[r.Commit] = id
	}
	for _, c := range commits {
		if byCommit[c] == "" {
			t.Errorf("landed commit %.8s has no pulse's receipt (receipts on %v)", c, byCommit)
		}
	}
	if _, ok, err := w.engine.PulseReceipt(ctx, wf, "pulse-9"); ok || err == nil {
		t.Errorf("PulseReceipt of an unknown pulse = %v, %v", ok, err)
	}
}

// TestBackfillReceipts: a checkpoint whose receipt a killed process did
// not write gets it when pulsing starts again; one that has it keeps it.
func TestBackfillReceipts(t *testing.T) {
	h, cfg := openScenario(t, "testdata/scenarios/gate-test.txt")
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	if wf, err = h.engine.Run(ctx, wf.ID); err != nil {
		t.Fatalf("run: %v", err)
	}
	commit := strings.TrimSpace(testkit.Git(t, h.dir, "rev-parse", git.WorkflowBranch(wf.Name)))
	first, ok, err := h.engine.PulseReceipt(ctx, wf, "pulse-1")
	if err != nil || !ok || first.Commit != commit {
		t.Fatalf("PulseReceipt = %+v, %v, %v", first, ok, err)
	}
	testkit.Git(t, h.dir, "notes", "--ref", git.NotesRef, "remove", commit)
	if _, ok, _ := h.engine.PulseReceipt(ctx, wf, "pulse-1"); ok {
		t.Fatal("the note was not removed")
	}
	must(t, workflow.BackfillReceipts(ctx, h.engine, wf))
	again, ok, err := h.engine.PulseReceipt(ctx, wf, "pulse-1")
	if err != nil || !ok || again.Commit != commit || len(again.Checks) != len(first.Checks) {
		t.Fatalf("after the backfill: %+v, %v, %v (first %+v)", again, ok, err, first)
	}
	must(t, workflow.BackfillReceipts(ctx, h.engine, wf))
	if n := strings.Count(testkit.Git(t, h.dir, "log", "--format=%s", git.NotesRef), "\n"); n != 3 {
		t.Errorf("notes history has %d commits, want 3 (written, removed, backfilled; none rewritten)", n)
	}
}
