package workflow_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// undoHarness runs testdata/undo/three-pulses.txt to completion.
func undoHarness(t *testing.T) (*harness, store.Workflow) {
	t.Helper()
	sc := testkit.LoadScenario(t, "testdata/undo/three-pulses.txt")
	var cfg scenarioConfig
	sc.Decode(t, &cfg, nil)
	h := newHarness(t, sc, cfg)
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("first run: %s %s (%s), %v", wf.Stage, wf.Status, wf.StatusReason, err)
	}
	return h, wf
}

func (h *harness) pulse(wf store.Workflow, id string) store.Pulse {
	h.t.Helper()
	ps, err := h.store.WorkflowPulses(context.Background(), wf.ID)
	must(h.t, err)
	for _, p := range ps {
		if p.PlannedID == id {
			return p
		}
	}
	h.t.Fatalf("no pulse %s", id)
	return store.Pulse{}
}

// TestRevertChildProcess is the process TestRevertRedoAndCrash kills
// during a revert (it does nothing on its own).
func TestRevertChildProcess(t *testing.T) {
	dir := os.Getenv("AUTARCH_TEST_REVERT_DIR")
	if dir == "" {
		t.Skip("run by TestRevertRedoAndCrash")
	}
	ctx := context.Background()
	repo, st := storetest.Open(t, dir)
	e, err := workflow.New(workflow.Config{Store: st, Repo: repo, Editor: &testkit.Editor{T: t},
		Model: openai.New(openai.Config{BaseURL: "http://127.0.0.1:1", APIKey: "unused"}), Settings: agent.Settings{Model: "unused"}})
	must(t, err)
	_, err = e.Revert(ctx, "abc", "pulse-2", workflow.RevertDyingAt("git", func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }))
	t.Fatalf("the revert was not killed: %v", err)
}

func TestRevertRedoAndCrash(t *testing.T) {
	h, wf := undoHarness(t)
	ctx := context.Background()
	userBefore, mainBefore := testkit.UserTreeHash(t, h.dir), gitS(t, h.dir, "rev-parse", "main")
	branch := git.WorkflowBranch(wf.Name)
	p1, p2, p3 := h.pulse(wf, "pulse-1"), h.pulse(wf, "pulse-2"), h.pulse(wf, "pulse-3")
	headBefore := gitS(t, h.dir, "rev-parse", branch)

	plan, err := h.engine.PlanRevert(ctx, wf.Name, "2")
	must(t, err)
	if !slices.Equal(plan.IDs(), []string{"pulse-2", "pulse-3"}) || !slices.Equal(plan.Commits(), []string{p3.CheckpointCommit, p2.CheckpointCommit}) ||
		!slices.Equal(plan.Files, []string{"b.go", "c.go"}) || plan.AppliedTo != "" {
		t.Fatalf("plan = %+v", plan)
	}

	// kill -9 once the revert commits are on the branch, before the
	// records are rewound.
	cmd := exec.Command(os.Args[0], "-test.run=^TestRevertChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "AUTARCH_TEST_REVERT_DIR="+h.dir)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	if n := gitS(t, h.dir, "rev-list", "--count", headBefore+".."+branch); n != "2" {
		t.Fatalf("%s commits on the branch after the kill, want the 2 revert commits", n)
	}
	if _, err := h.store.OpenRevert(ctx, wf.ID); err != nil {
		t.Fatalf("no unfinished revert after the kill: %v", err)
	}

	// The next revert call finishes it (Resume would too: below).
	res, err := h.engine.Revert(ctx, wf.Name, "pulse-2", workflow.RevertOptions{})
	must(t, err)
	if len(res.Commits) != 2 || res.Commits[0].Reverts != p3.CheckpointCommit || res.Commits[1].Reverts != p2.CheckpointCommit || res.Resolved != 1 {
		t.Errorf("revert result = %+v", res)
	}
	if n := gitS(t, h.dir, "rev-list", "--count", headBefore+".."+branch); n != "2" {
		t.Errorf("%s commits on the branch, want 2 revert commits", n)
	}
	if a, b := gitS(t, h.dir, "rev-parse", branch+"^{tree}"), gitS(t, h.dir, "rev-parse", p1.CheckpointCommit+"^{tree}"); a != b {
		t.Errorf("the branch tree is not the tree after pulse 1")
	}
	wf, err = h.store.Workflow(ctx, wf.ID)
	must(t, err)
	if wf.Stage != string(workflow.StagePulsing) || wf.Status != store.WorkflowStopped || !strings.Contains(wf.StatusReason, "autarch redo abc pulse-2") {
		t.Errorf("workflow after the revert: %s %s (%s)", wf.Stage, wf.Status, wf.StatusReason)
	}
	for id, want := range map[string]store.PulseStatus{"pulse-1": store.PulseSucceeded, "pulse-2": store.PulseProposed, "pulse-3": store.PulseProposed} {
		p := h.pulse(wf, id)
		if p.Status != want || (want == store.PulseProposed) != (p.RevertedBy == res.RevertID) || (want == store.PulseProposed && p.CheckpointCommit != "") {
			t.Errorf("pulse %s: %s, reverted by %q, checkpoint %q; want %s", id, p.Status, p.RevertedBy, p.CheckpointCommit, want)
		}
	}
	if p := h.pulse(wf, "pulse-2"); p.Description != "Add B in b.go from A" {
		t.Errorf("pulse-2 lost its instructions: %q", p.Description)
	}
	if msgs, _ := h.store.Messages(ctx, wf.ID, string(workflow.StagePulsing), p2.ID); len(msgs) != 0 {
		t.Errorf("pulse-2's conversation is still current: %d messages", len(msgs))
	}
	card, err := h.store.LatestReview(ctx, wf.ID)
	must(t, err)
	comments, _ := h.store.Comments(ctx, card.ID)
	for _, c := range comments {
		if (c.FilePath == "c.go") != (c.ResolvedBy == res.RevertID) {
			t.Errorf("comment on %s: resolved by %q", c.FilePath, c.ResolvedBy)
		}
	}

	// Refusals.
	locks := run.NewLocks(filepath.Join(h.repo.StateDir(), "locks"))
	unlock, err := locks.Take(run.Ref{Kind: run.KindWorkflow, ID: wf.ID}.LockName())
	must(t, err)
	_, lockedErr := h.engine.Revert(ctx, wf.Name, "pulse-1", workflow.RevertOptions{})
	unlock()
	for _, c := range []struct {
		name, want string
		err        error
	}{
		{"unknown pulse", `has no pulse "pulse-9": its pulses are pulse-1, pulse-2, pulse-3`, second(h.engine.Revert(ctx, wf.Name, "pulse-9", workflow.RevertOptions{}))},
		{"not done", "pulse pulse-3 of abc is already reverted: run it again with autarch redo abc pulse-3", second(h.engine.PlanRevert(ctx, wf.Name, "3"))},
		{"redo of a pulse not reverted", "pulse pulse-1 of abc was not reverted (it is Succeeded): revert it first", second(h.engine.MarkRedo(ctx, wf.Name, "pulse-1", ""))},
		{"running", "is running in another autarch process: stop it first (autarch stop abc)", lockedErr},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, c.err, c.want)
		}
	}
	if !run.IsLocked(lockedErr) {
		t.Errorf("the running refusal is not a run.ErrLocked: %v", lockedErr)
	}

	// Redo with guidance: pulses 2 and 3 run again through the gates.
	wf, err = h.engine.Redo(ctx, wf.Name, "2", "use a table test")
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("redo: %s %s (%s), %v", wf.Stage, wf.Status, wf.StatusReason, err)
	}
	if got := commitSubjects(t, h.dir, wf.BaseCommit, branch); !slices.Equal(got, []string{"feat(calc): add A", "feat(calc): add B", "feat(calc): add C",
		`Revert "feat(calc): add C"`, `Revert "feat(calc): add B"`, "feat(calc): add B again", "feat(calc): add C"}) {
		t.Errorf("branch = %q", got)
	}
	if p := h.pulse(wf, "pulse-2"); p.Status != store.PulseSucceeded || p.CheckpointCommit == p2.CheckpointCommit || p.Guidance != "use a table test" {
		t.Errorf("pulse-2 after redo: %+v", p)
	}
	if after := testkit.UserTreeHash(t, h.dir); after != userBefore || gitS(t, h.dir, "rev-parse", "main") != mainBefore {
		t.Errorf("the user's branch, HEAD, index or tree changed")
	}

	// Resume finishes a revert that died after its git side.
	func() {
		defer func() { recover() }()
		h.engine.Revert(ctx, wf.Name, "pulse-3", workflow.RevertDyingAt("git", func() { panic("died") }))
	}()
	wf, err = h.engine.Resume(ctx, wf.Name)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume after a half-done revert: %s %s (%s), %v", wf.Stage, wf.Status, wf.StatusReason, err)
	}
	if got := commitSubjects(t, h.dir, wf.BaseCommit, branch); len(got) != 9 || got[7] != `Revert "feat(calc): add C"` || got[8] != "feat(calc): add C once more" {
		t.Errorf("branch after resume = %q", got)
	}

	// An applied workflow: refused until confirmed; then Apply again.
	testkit.Git(t, h.dir, "merge", "-q", "--ff-only", branch)
	if _, err := h.engine.Revert(ctx, wf.Name, "pulse-3", workflow.RevertOptions{}); !errors.Is(err, workflow.ErrApplied) ||
		!strings.Contains(err.Error(), "Apply the workflow again") {
		t.Errorf("revert of an applied workflow: %v", err)
	}
	res, err = h.engine.Revert(ctx, wf.Name, "pulse-3", workflow.RevertOptions{Applied: true})
	if err != nil || !strings.Contains(res.Message, "Apply the workflow again") || gitS(t, h.dir, "rev-parse", "main") == gitS(t, h.dir, "rev-parse", branch) {
		t.Errorf("confirmed revert of an applied workflow: %+v, %v", res, err)
	}
	testkit.CheckModel(t, h.model)
}

func second[T any](_ T, err error) error { return err }

func gitS(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testkit.Git(t, dir, args...))
}
