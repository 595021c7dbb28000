package workflow_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// completedThreePulses records a completed 3-pulse workflow (pulse-3 on
// pulse-2 on pulse-1) without a model: the plan and pulses in the store,
// the checkpoint commits made by git.Workflow as the engine makes them.
func completedThreePulses(b *testing.B) *workflow.Engine {
	b.Helper()
	ctx := context.Background()
	dir := b.TempDir()
	testkit.Commit(b, dir)
	repo, st := storetest.Open(b, dir)
	e, err := workflow.New(workflow.Config{Store: st, Repo: repo, Editor: &testkit.Editor{T: b},
		Model: openai.New(openai.Config{BaseURL: "http://127.0.0.1:1", APIKey: "unused"}), Settings: agent.Settings{Model: "unused"}})
	must(b, err)
	gw, err := repo.CreateWorkflow(ctx, "abc", "main")
	must(b, err)
	base, err := gw.Head(ctx)
	must(b, err)
	wf := store.Workflow{Name: "abc", Task: "A, B, C", Stage: string(workflow.StageDone), Path: "full", BaseBranch: "main", BaseCommit: base,
		WorkflowBranch: gw.Branch, WorktreePath: gw.Worktree, Status: store.WorkflowCompleted}
	must(b, st.CreateWorkflow(ctx, &wf))
	plan := store.Plan{WorkflowID: wf.ID, ApproachSummary: "A, B, C", Pulses: []store.Pulse{
		{PlannedID: "pulse-1", Title: "A"}, {PlannedID: "pulse-2", Title: "B", DependsOn: []string{"pulse-1"}},
		{PlannedID: "pulse-3", Title: "C", DependsOn: []string{"pulse-2"}}}}
	must(b, st.AddPlan(ctx, &plan))
	must(b, st.ResolveCard(ctx, store.KindPlan, plan.ID, store.CardApproved, ""))
	for _, p := range plan.Pulses {
		_, err := gw.StartPulse(ctx, p.PlannedID)
		must(b, err)
		must(b, st.StartPulse(ctx, p.ID, store.PulseStart{}))
		must(b, os.WriteFile(filepath.Join(gw.Worktree, p.Title+".go"), []byte("package calc\n"), 0o644))
		cp, err := gw.CompletePulse(ctx, p.PlannedID, "feat: add "+p.Title)
		must(b, err)
		must(b, st.FinishPulse(ctx, p.ID, store.PulseEnd{Status: store.PulseSucceeded, Summary: "feat: add " + p.Title, CheckpointCommit: cp.Commit}))
	}
	return e
}

// BenchmarkRevertThreePulseWorkflow: Engine.Revert of pulse-2 of a
// completed 3-pulse workflow (pulse-3 depends on it): the plan, the
// intent, two revert commits, the records rewound. Each iteration reverts
// a fresh workflow (made with the timer stopped).
func BenchmarkRevertThreePulseWorkflow(b *testing.B) {
	ctx := context.Background()
	var times []time.Duration
	for range b.N {
		b.StopTimer()
		e := completedThreePulses(b)
		b.StartTimer()
		start := time.Now()
		res, err := e.Revert(ctx, "abc", "pulse-2", workflow.RevertOptions{})
		if err != nil || len(res.Commits) != 2 {
			b.Fatalf("revert: %+v, %v", res, err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	var total time.Duration
	for _, d := range times {
		total += d
	}
	if len(times) > 0 {
		b.ReportMetric(float64(total.Milliseconds())/float64(len(times)), "ms/revert")
	}
}
