package job

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// Summaries lists the jobs, most recently updated first, with their
// branch, commits, latest test and lint results, escalations, tokens and
// cost. Jobs a killed process left Running are recovered first.
func (r *Runner) Summaries(ctx context.Context) ([]editor.JobSummary, error) {
	if err := r.Recover(ctx); err != nil {
		return nil, err
	}
	jobs, err := r.store.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]editor.JobSummary, 0, len(jobs))
	for _, j := range jobs {
		s, err := r.summary(ctx, j)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Summary is one job's summary.
func (r *Runner) Summary(ctx context.Context, ref string) (editor.JobSummary, error) {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return editor.JobSummary{}, err
	}
	return r.summary(ctx, j)
}

func (r *Runner) summary(ctx context.Context, j store.Job) (editor.JobSummary, error) {
	s := editor.JobSummary{ID: j.ID, Name: j.Name, Task: j.Task, Mode: j.Mode, Status: string(j.Status), StatusReason: j.StatusReason,
		Base: j.BaseRef, Branch: j.Branch, Worktree: j.WorktreePath, Commits: []editor.JobCommitView{}, Escalations: []editor.EscalationView{},
		Tokens: j.Tokens(), TokenBudget: j.TokenBudget, Iterations: j.Iterations, Cost: j.Cost, UpdatedAt: j.UpdatedAt.Format(time.RFC3339)}
	commits, err := r.store.JobCommits(ctx, j.ID)
	if err != nil {
		return s, err
	}
	for _, c := range commits {
		s.Commits = append(s.Commits, editor.JobCommitView{Hash: c.Hash, Message: c.Message, Branch: c.Branch, Files: c.Files})
	}
	checks, err := r.store.JobChecks(ctx, j.ID)
	if err != nil {
		return s, err
	}
	for _, c := range checks {
		v := &editor.JobCheckView{Status: c.Status, Passed: c.Passed, Failed: c.Failed, Summary: c.Summary}
		if c.Kind == "test" {
			s.Tests = v
		} else {
			s.Lint = v
		}
	}
	escalations, err := r.store.JobEscalations(ctx, j.ID)
	if err != nil {
		return s, err
	}
	for _, e := range escalations {
		s.Escalations = append(s.Escalations, editor.EscalationView{ID: e.ID, Reason: e.Reason, Severity: e.Severity, Context: string(e.Context),
			Status: e.Status, Approved: e.Approved, Feedback: e.Feedback, CreatedAt: rfc3339(e.CreatedAt), ResolvedAt: rfc3339(e.ResolvedAt)})
	}
	if s.Activity, err = r.activity(ctx, j.ID); err != nil {
		return s, err
	}
	analyses, err := r.store.JobAnalyses(ctx, j.ID)
	if err != nil {
		return s, err
	}
	s.Analyses = len(analyses)
	plans, err := r.store.JobPlans(ctx, j.ID)
	if err != nil {
		return s, err
	}
	if n := len(plans); n > 0 {
		var steps []json.RawMessage
		if json.Unmarshal(plans[n-1].Steps, &steps) == nil {
			s.PlanSteps = len(steps)
		}
	}
	return s, nil
}

// activity is a job's latest tool calls, oldest first, as the activity
// feed shows them.
func (r *Runner) activity(ctx context.Context, id string) ([]editor.ActivityView, error) {
	calls, err := r.store.JobToolCalls(ctx, id)
	if err != nil {
		return nil, err
	}
	calls = calls[max(0, len(calls)-editor.MaxJobActivity):]
	out := make([]editor.ActivityView, 0, len(calls))
	for _, c := range calls {
		out = append(out, editor.ActivityView{Time: rfc3339(c.StartedAt), Stage: "job", Tool: c.Name, Reason: c.Reason, Failed: c.Failed, CallID: c.CallID})
	}
	return out, nil
}

// rfc3339 formats a stored time in UTC ("" for none).
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Apply brings a job's commits into the user's folder the way a
// workflow's work is applied (workflow.Engine.Apply): "merge"
// fast-forwards the current branch to the job's branch, "edit" sends the
// changes as one workspace edit the user can undo.
func (r *Runner) Apply(ctx context.Context, ref string, mode workflow.ApplyMode, document func(path string) (string, bool)) (editor.ApplyWorkflowResult, error) {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	commits, err := r.store.JobCommits(ctx, j.ID)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	if j.Branch == "" || len(commits) == 0 {
		return editor.ApplyWorkflowResult{}, fmt.Errorf("job %s has no commit to apply yet (it is %s)", j.Name, j.Status)
	}
	if r.cfg.Apply == nil {
		return editor.ApplyWorkflowResult{}, fmt.Errorf("job %s cannot be applied here: apply its branch %s with git", j.Name, j.Branch)
	}
	wf := store.Workflow{Name: j.Name, BaseCommit: j.BaseCommit, WorkflowBranch: j.Branch}
	return r.cfg.Apply(ctx, wf, mode, document)
}
