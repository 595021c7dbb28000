package workflow

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// activityLimit is how many recent tool calls a WorkflowDetail carries.
const activityLimit = 200

// Summaries lists the workflows, most recently updated first.
func (e *Engine) Summaries(ctx context.Context) ([]editor.WorkflowSummary, error) {
	wfs, err := e.cfg.Store.Workflows(ctx)
	if err != nil {
		return nil, err
	}
	out := []editor.WorkflowSummary{}
	for _, wf := range wfs {
		s, err := e.summary(ctx, wf)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b editor.WorkflowSummary) int { return cmp.Compare(b.UpdatedAt, a.UpdatedAt) })
	return out, nil
}

func (e *Engine) summary(ctx context.Context, wf store.Workflow) (editor.WorkflowSummary, error) {
	pulses, err := e.runnablePulses(ctx, wf)
	if err != nil {
		return editor.WorkflowSummary{}, err
	}
	use, err := e.cfg.Store.WorkflowUsage(ctx, wf.ID)
	if err != nil {
		return editor.WorkflowSummary{}, err
	}
	s := editor.WorkflowSummary{ID: wf.ID, Name: wf.Name, Task: wf.Task, Stage: wf.Stage, Status: string(wf.Status), StatusReason: wf.StatusReason,
		Path: wf.Path, Branch: wf.WorkflowBranch, Pulses: len(pulses), Tokens: int(use.PromptTokens + use.CompletionTokens), Cost: use.Cost,
		UpdatedAt: wf.UpdatedAt.UTC().Format(time.RFC3339)}
	for _, p := range pulses {
		if p.Status == PulseSucceeded {
			s.PulsesDone++
		}
	}
	return s, nil
}

// runnablePulses are the pulses the workflow runs (none before its plan
// is approved).
func (e *Engine) runnablePulses(ctx context.Context, wf store.Workflow) ([]store.Pulse, error) {
	pulses, err := e.plannedPulses(ctx, wf)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return pulses, err
}

// Detail is everything the side panel shows of one workflow.
func (e *Engine) Detail(ctx context.Context, idOrName string) (editor.WorkflowDetail, error) {
	wf, err := e.Find(ctx, idOrName)
	if err != nil {
		return editor.WorkflowDetail{}, err
	}
	d := editor.WorkflowDetail{Stages: stageTimeline(wf), Pulses: []editor.PulseView{}, Pending: []editor.PendingView{},
		Activity: []editor.ActivityView{}, Messages: []editor.MessageView{}}
	if d.Summary, err = e.summary(ctx, wf); err != nil {
		return d, err
	}
	steps := []func(context.Context, store.Workflow, *editor.WorkflowDetail) error{e.cardViews, e.pulseViews, e.pendingViews, e.activityViews, e.messageViews, e.reviewView}
	for _, step := range steps {
		if err := step(ctx, wf, &d); err != nil {
			return d, err
		}
	}
	return d, nil
}

// stageTimeline marks the stages of the workflow's path done, current or todo.
func stageTimeline(wf store.Workflow) []editor.StageView {
	path := []Stage{StageScoping, StageResearch, StagePlan, StagePreflight, StagePulsing, StageReview, StageDone}
	if Path(wf.Path) == PathQuick {
		path = []Stage{StageScoping, StagePreflight, StagePulsing, StageReview, StageDone}
	}
	cur := slices.Index(path, Stage(wf.Stage))
	out := make([]editor.StageView, len(path))
	for i, st := range path {
		state := "todo"
		switch {
		case cur < 0: // abandoned
		case i < cur || Stage(wf.Stage) == StageDone:
			state = "done"
		case i == cur:
			state = "current"
		}
		out[i] = editor.StageView{Stage: string(st), State: state}
	}
	return out
}

func (e *Engine) cardViews(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	scopes, err := e.cfg.Store.ScopeCards(ctx, wf.ID)
	if err != nil {
		return err
	}
	if n := len(scopes); n > 0 {
		sc := scopes[n-1]
		d.Scope = &editor.CardView{Title: sc.Title, Markdown: scopeMarkdown(sc), Status: string(sc.Status), Feedback: sc.Feedback}
	}
	rs, err := e.cfg.Store.ResearchCards(ctx, wf.ID)
	if err != nil {
		return err
	}
	if n := len(rs); n > 0 {
		c := researchCard(rs[n-1])
		d.Research = &editor.CardView{Title: c.approval.Title, Markdown: c.approval.Detail, Status: string(rs[n-1].Status), Feedback: rs[n-1].Feedback}
	}
	p, err := e.cfg.Store.LatestPlan(ctx, wf.ID)
	switch {
	case err == nil:
		c := planCard(p)
		d.Plan = &editor.CardView{Title: c.approval.Title, Markdown: c.approval.Detail, Status: string(p.Status), Feedback: p.Feedback}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	return nil
}

func (e *Engine) pulseViews(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	pulses, err := e.runnablePulses(ctx, wf)
	if err != nil {
		return err
	}
	lanes, err := e.lanes(ctx, wf, pulses)
	if err != nil {
		return err
	}
	d.Parallel = lanes.parallel
	for _, p := range pulses {
		v := editor.PulseView{ID: p.PlannedID, Title: p.Title, Status: string(p.Status), Summary: p.Summary, Commit: p.CheckpointCommit,
			Branch: p.PulseBranch, Files: p.Diff.Files, Additions: p.Diff.Additions, Deletions: p.Diff.Deletions, Recovery: p.IsRecoveryCheckpoint,
			Unresolved: []string{}, FailureReason: p.FailureReason, Reverted: p.RevertedBy != "" && p.Status == PulseProposed, Guidance: p.Guidance}
		for _, u := range p.UnresolvedIssues {
			v.Unresolved = append(v.Unresolved, u.Issue+" — "+u.Reason)
		}
		lanes.fill(&v, p)
		d.Pulses = append(d.Pulses, v)
	}
	return nil
}

func (e *Engine) pendingViews(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	open, err := e.cfg.Store.OpenPending(ctx, wf.ID)
	if err != nil {
		return err
	}
	for _, p := range open {
		d.Pending = append(d.Pending, editor.PendingView{ID: p.ID, Kind: p.Kind, Stage: p.Stage, Payload: string(p.Payload)})
	}
	return nil
}

func (e *Engine) activityViews(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	calls, err := e.cfg.Store.ToolCalls(ctx, wf.ID, "")
	if err != nil {
		return err
	}
	pulses, err := e.cfg.Store.WorkflowPulses(ctx, wf.ID)
	if err != nil {
		return err
	}
	planned := map[string]string{}
	for _, p := range pulses {
		more, err := e.cfg.Store.ToolCalls(ctx, wf.ID, p.ID)
		if err != nil {
			return err
		}
		calls = append(calls, more...)
		planned[p.ID] = p.PlannedID
	}
	slices.SortStableFunc(calls, func(a, b store.ToolCall) int { return cmp.Compare(a.ID, b.ID) })
	if len(calls) > activityLimit {
		calls = calls[len(calls)-activityLimit:]
	}
	for _, c := range calls {
		d.Activity = append(d.Activity, editor.ActivityView{Time: c.StartedAt.UTC().Format(time.RFC3339), Stage: c.Stage, PulseID: planned[c.PulseID],
			Tool: c.Name, Reason: c.Reason, Failed: c.Failed, CallID: c.CallID, Subagent: c.Subagent, ParentCallID: c.ParentCallID})
	}
	return nil
}

func (e *Engine) messageViews(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	msgs, err := e.cfg.Store.Messages(ctx, wf.ID, wf.Stage, "")
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Content == "" || m.Role == "tool" {
			continue
		}
		d.Messages = append(d.Messages, editor.MessageView{Role: m.Role, Stage: m.Stage, Text: m.Content})
	}
	return nil
}

func (e *Engine) reviewView(ctx context.Context, wf store.Workflow, d *editor.WorkflowDetail) error {
	rc, err := e.cfg.Store.LatestReview(ctx, wf.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	v, err := e.ReviewView(ctx, rc)
	d.Review = &v
	return err
}

// ReviewView is a review card with its comments, for editors.
func (e *Engine) ReviewView(ctx context.Context, rc store.ReviewCard) (editor.ReviewView, error) {
	v := editor.ReviewView{ID: rc.ID, Status: string(rc.Status), Recommendation: rc.Recommendation, Summary: rc.Summary, Base: rc.DiffBase, Head: rc.DiffHead,
		Comments: []editor.CommentView{}}
	cs, err := e.cfg.Store.Comments(ctx, rc.ID)
	if err != nil {
		return v, err
	}
	for _, c := range cs {
		v.Comments = append(v.Comments, editor.CommentView{ID: c.ID, Type: string(c.Type), FilePath: c.FilePath, StartLine: c.StartLine, EndLine: c.EndLine,
			Severity: c.Severity, Category: c.Category, Description: c.Description, Suggestion: c.Suggestion, PreExisting: c.PreExisting})
	}
	return v, nil
}
