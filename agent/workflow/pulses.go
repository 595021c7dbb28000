package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/terminal"
	"github.com/autarch-dev/autarch/tools/verify"
	"github.com/autarch-dev/autarch/workspace/git"
)

// pulse runs the workflow's pulses in plan order. All succeeded cleanly:
// the workflow moves to Review. A pulse failed, was stopped or completed
// with unresolved issues: orchestration halts for the user.
func (e *Engine) pulse(ctx context.Context, wf store.Workflow) error {
	gw, root, err := e.workspace(ctx, wf)
	if err != nil {
		return err
	}
	pulses, err := e.plannedPulses(ctx, wf)
	if err != nil {
		return err
	}
	baselines, err := e.baselines(ctx, wf)
	if err != nil {
		return err
	}
	e.backfillReceipts(ctx, wf, pulses)
	pinned, err := e.pinned(ctx, wf)
	if err != nil {
		return err
	}
	if m := e.masksOf(wf.ID, root); m != nil && gw != nil {
		gw.FollowChanges(m) // the tree watch of the masks tells what changed (issue 35)
	}
	r := &pulseRunner{e: e, wf: wf, gw: gw, root: root, pulses: map[string]store.Pulse{}, baselines: baselines, pinned: pinned}
	var planned []PlannedPulse
	done := map[string]bool{}
	for _, p := range pulses {
		r.pulses[p.PlannedID] = p
		planned = append(planned, PlannedPulse{ID: p.PlannedID, Title: p.Title, Description: p.Description, ExpectedChanges: p.ExpectedChanges,
			EstimatedSize: p.EstimatedSize, DependsOn: p.DependsOn})
		done[p.PlannedID] = p.Status == PulseSucceeded
	}
	parallel, err := e.cfg.Store.Parallel(ctx, wf.ID)
	if err != nil {
		return err
	}
	if parallel > 1 && gw != nil {
		err = e.runParallel(ctx, r, planned, done, parallel)
	} else {
		err = RunPulses(ctx, r, planned, done)
	}
	var h *Halt
	switch {
	case errors.As(err, &h) && ctx.Err() == nil:
		if err := e.finish(ctx, wf, store.WorkflowHalted, h.Error()); err != nil {
			return err
		}
		return h
	case err != nil:
		return err
	}
	return e.next(ctx, wf)
}

// plannedPulses are the pulses to run: the approved plan's, or the quick
// path's single pulse.
func (e *Engine) plannedPulses(ctx context.Context, wf store.Workflow) ([]store.Pulse, error) {
	if Path(wf.Path) == PathQuick {
		return e.cfg.Store.WorkflowPulses(ctx, wf.ID)
	}
	plan, err := e.cfg.Store.ApprovedPlan(ctx, wf.ID)
	if err != nil {
		return nil, fmt.Errorf("the workflow has no approved plan: %w", err)
	}
	return e.cfg.Store.PlanPulses(ctx, plan.ID)
}

// pulseRunner runs one pulse: its branch, its agent in the worktree,
// completion validation, the checkpoint or recovery commit.
type pulseRunner struct {
	e         *Engine
	wf        store.Workflow
	gw        *git.Workflow          // nil in a dry run
	root      string                 // where the agents work: gw's worktree, or the user's folder in a dry run
	pulses    map[string]store.Pulse // by planned id
	baselines []tools.Baseline
	pinned    string
	// tree is a parallel pulse's own worktree (nil: the pulse runs in the
	// workflow's worktree and lands when it completes); note tells a
	// re-run pulse why (parallel.go).
	tree *git.PulseTree
	note string
}

func (r *pulseRunner) RunPulse(ctx context.Context, p PlannedPulse) (PulseOutcome, error) {
	sp, ok := r.pulses[p.ID]
	if !ok {
		return PulseOutcome{}, fmt.Errorf("pulse %s is not in the store", p.ID)
	}
	resumed, err := r.start(ctx, sp)
	if err != nil {
		return PulseOutcome{}, err
	}
	r.e.emit(Event{Kind: "pulse", WorkflowID: r.wf.ID, Stage: string(StagePulsing), PulseID: p.ID, Status: string(PulseRunning), Text: p.Title})
	conv, err := r.e.open(ctx, r.wf, StagePulsing, sp.ID, talkOptions{Root: r.root, Extra: []tools.Tool{r.completePulseTool(sp)},
		Pinned: r.pinned + "\n" + r.e.baselineText(r.baselines), Baselines: r.baselines, InPlay: sp.ExpectedChanges})
	if err != nil {
		return r.end(ctx, sp, PulseFailed, err.Error(), err)
	}
	defer conv.close()
	r.keepFailures(ctx, conv.sess, sp)
	var result terminal.PulseDone
	input := pulseInput(p, resumed)
	if r.note != "" {
		input += "\n\n" + r.note
	}
	if sp.Guidance != "" { // autarch redo's (revert.go)
		input += "\n\nThe user's guidance for this run of the pulse: " + sp.Guidance
	}
	err = conv.talk(ctx, input, endsWith(terminal.CompletePulse, "Call complete_pulse when the pulse is done.", func(_ context.Context, p terminal.PulseDone) (string, bool, error) {
		result = p
		return "", true, nil
	}))
	var f *stageFailure
	switch {
	case err == nil:
		return r.complete(ctx, sp, result)
	case errors.As(err, &f):
		return r.end(ctx, sp, PulseFailed, f.reason, nil)
	case ctx.Err() != nil:
		return r.end(ctx, sp, PulseStopped, "the workflow was stopped", ctx.Err())
	case errors.Is(err, ErrWaiting):
		return r.end(ctx, sp, PulseStopped, "waiting for the user to answer", err)
	}
	return r.end(ctx, sp, PulseFailed, err.Error(), err)
}

// start puts the worktree on the pulse's branch: a new one, or the kept
// branch of an earlier failed or stopped run (resumed).
func (r *pulseRunner) start(ctx context.Context, sp store.Pulse) (resumed bool, err error) {
	if r.gw == nil {
		return false, r.e.cfg.Store.StartPulse(ctx, sp.ID, store.PulseStart{WorktreePath: r.root}) // a dry run makes no branch
	}
	if r.tree != nil {
		return r.tree.Resumed, r.e.cfg.Store.StartPulse(ctx, sp.ID, store.PulseStart{PulseBranch: r.tree.Branch, WorktreePath: r.tree.Path})
	}
	kept, err := r.gw.PulseBranches(ctx)
	if err != nil {
		return false, err
	}
	branch := git.PulseBranch(r.wf.Name, sp.PlannedID)
	if contains(kept, sp.PlannedID) {
		if _, err := r.gw.ResumePulse(ctx, sp.PlannedID); err != nil {
			return false, err
		}
		resumed = true
	} else if branch, err = r.gw.StartPulse(ctx, sp.PlannedID); err != nil {
		return false, err
	}
	return resumed, r.e.cfg.Store.StartPulse(ctx, sp.ID, store.PulseStart{PulseBranch: branch, WorktreePath: r.gw.Worktree})
}

// complete makes the checkpoint commit of an accepted pulse.
func (r *pulseRunner) complete(ctx context.Context, sp store.Pulse, done terminal.PulseDone) (PulseOutcome, error) {
	cp, err := r.checkpoint(ctx, sp.PlannedID, done.Summary)
	if err != nil {
		return r.end(ctx, sp, PulseFailed, "checkpoint commit failed: "+err.Error(), err)
	}
	unresolved := make([]UnresolvedIssue, len(done.UnresolvedIssues))
	for i, u := range done.UnresolvedIssues {
		unresolved[i] = UnresolvedIssue(u)
	}
	if r.tree != nil { // committed on its branch; the pulse lands in plan order (parallel.go)
		return PulseOutcome{Status: PulseSucceeded, Summary: done.Summary, Unresolved: unresolved, checkpoint: cp}, nil
	}
	r.e.recordReceipt(ctx, r.wf, sp, cp.Commit)
	if err := r.e.cfg.Store.FinishPulse(context.WithoutCancel(ctx), sp.ID, store.PulseEnd{Status: PulseSucceeded, Summary: done.Summary,
		CheckpointCommit: cp.Commit, Diff: diffStats(cp.Stats), UnresolvedIssues: unresolved, DiffPatch: r.diffPatch(ctx, sp, cp)}); err != nil {
		return PulseOutcome{}, err
	}
	r.e.emit(Event{Kind: "pulse", WorkflowID: r.wf.ID, Stage: string(StagePulsing), PulseID: sp.PlannedID, Status: string(PulseSucceeded),
		Unresolved: len(unresolved), Text: fmt.Sprintf("%s (%s)", done.Summary, r.committed(cp)) + leftOut(cp)})
	return PulseOutcome{Status: PulseSucceeded, Summary: done.Summary, Unresolved: unresolved}, nil
}

// leftOut says what of the worktree the checkpoint left out (nested
// repositories and gitlinks the agent created), "" for nothing.
func leftOut(cp git.Checkpoint) string {
	if len(cp.Excluded) == 0 {
		return ""
	}
	return "\nNot committed:\n" + git.ExcludedMessage(cp.Excluded)
}

// end finishes a failed or stopped pulse, keeping uncommitted work as a
// recovery checkpoint on its branch. cause, when set, is returned.
func (r *pulseRunner) end(ctx context.Context, sp store.Pulse, status PulseStatus, reason string, cause error) (PulseOutcome, error) {
	ctx = context.WithoutCancel(ctx)
	cp, err := r.recovery(ctx, sp.PlannedID, reason)
	if err != nil {
		return PulseOutcome{}, errors.Join(cause, fmt.Errorf("recovery checkpoint of pulse %s: %w", sp.PlannedID, err))
	}
	end := store.PulseEnd{Status: status, FailureReason: reason, IsRecoveryCheckpoint: cp.IsRecoveryCheckpoint}
	if cp.IsRecoveryCheckpoint {
		end.CheckpointCommit, end.Diff, end.DiffPatch = cp.Commit, diffStats(cp.Stats), r.diffPatch(ctx, sp, cp)
	}
	if err := r.e.cfg.Store.FinishPulse(ctx, sp.ID, end); err != nil {
		return PulseOutcome{}, errors.Join(cause, err)
	}
	text := reason
	if cp.IsRecoveryCheckpoint {
		text += fmt.Sprintf(" (work kept in recovery checkpoint %s on %s)", short(cp.Commit), cp.PulseBranch)
	}
	text += leftOut(cp)
	r.e.emit(Event{Kind: "pulse", WorkflowID: r.wf.ID, Stage: string(StagePulsing), PulseID: sp.PlannedID, Status: string(status), Text: text})
	return PulseOutcome{Status: status, FailureReason: reason}, cause
}

// diffPatch is the diff of a pulse's checkpoint against the workflow head
// it started from, to store as the pulse's diff artifact ("" for an empty
// pulse or a dry run). The commit is made: a diff that cannot be read is
// logged and the pulse ends without the artifact.
func (r *pulseRunner) diffPatch(ctx context.Context, sp store.Pulse, cp git.Checkpoint) string {
	if cp.Commit == "" || cp.Parent == "" || cp.Empty {
		return ""
	}
	d, err := r.e.cfg.Repo.Diff(context.WithoutCancel(ctx), cp.Parent, cp.Commit)
	if err != nil {
		r.e.cfg.Log.Warn("store the pulse's diff", "pulse", sp.PlannedID, "err", err)
		return ""
	}
	return d.Patch
}

func pulseInput(p PlannedPulse, resumed bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Implement pulse %s: %s\n\n%s\n", p.ID, p.Title, p.Description)
	if len(p.ExpectedChanges) > 0 {
		fmt.Fprintf(&b, "\nExpected changes: %s\n", strings.Join(p.ExpectedChanges, ", "))
	}
	if resumed {
		b.WriteString("\nThis pulse was interrupted earlier; its work so far is in the worktree. Check what is there before continuing.\n")
	}
	b.WriteString("\nWhen the pulse is complete, builds and its tests pass, call complete_pulse with a Conventional Commit summary.")
	return b.String()
}

// baselineText lists preflight's baselines for the pulsing agent.
func (e *Engine) baselineText(bs []tools.Baseline) string {
	if len(bs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Pre-existing issues recorded by preflight (not yours to fix; they do not count against the pulse):\n")
	for _, x := range bs {
		fmt.Fprintf(&b, "- %s %s: %s", x.Source, x.IssueType, x.Pattern)
		if x.FilePath != "" {
			b.WriteString(" in " + x.FilePath)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func short(commit string) string {
	if len(commit) > 8 {
		return commit[:8]
	}
	return commit
}

// keepFailures makes the session's unresolved failures durable: those of
// the pulse's earlier runs are restored, and every change is stored.
func (r *pulseRunner) keepFailures(ctx context.Context, sess *tools.Session, sp store.Pulse) {
	earlier := make([]tools.Failure, len(sp.Failures))
	for i, f := range sp.Failures {
		earlier[i] = tools.Failure{Tool: f.Tool, Summary: f.Summary, Key: f.Key}
	}
	sess.RestoreFailures(earlier)
	sess.OnFailures(func(fs []tools.Failure) {
		out := make([]store.PulseFailure, len(fs))
		for i, f := range fs {
			out[i] = store.PulseFailure{Tool: f.Tool, Summary: f.Summary, Key: f.Key}
		}
		if err := r.e.cfg.Store.SetPulseFailures(context.WithoutCancel(ctx), sp.ID, out); err != nil {
			r.e.cfg.Log.Warn("record pulse failures", "pulse", sp.PlannedID, "err", err)
		}
	})
}

// completePulseTool is complete_pulse with the completion protocol: the
// quality gates run on what the pulse changed, and completion is rejected
// while they fail or tool failures since the pulse began are unresolved;
// the escape hatch is offered after EscapeHatchAfter rejections.
func (r *pulseRunner) completePulseTool(pulse store.Pulse) tools.Tool {
	e := r.e
	inner := terminalTool("pulsing", terminal.CompletePulse)
	var rejections atomic.Int64
	rejections.Store(int64(pulse.RejectionCount))
	schema := func() json.RawMessage {
		if escapeHatchRevealed(int(rejections.Load())) {
			return terminal.EscapeHatchSchema()
		}
		return inner.Schema()
	}
	return gatedTool{Tool: inner, schema: schema, check: func(ctx context.Context, s *tools.Session, args json.RawMessage) (*tools.Result, error) {
		var p terminal.PulseDone
		if err := json.Unmarshal(args, &p); err != nil {
			return nil, fmt.Errorf("complete_pulse arguments: %w", err)
		}
		gates, err := r.runGates(ctx, s, pulse)
		if err != nil {
			return nil, err
		}
		var failures []Failure // read after the gates: passing gates resolve failed commands (004-58)
		for _, f := range s.FailuresSince(0) {
			failures = append(failures, Failure{Tool: f.Tool, Summary: f.Summary})
		}
		failures = append(failures, GateFailures(gates)...)
		unresolved := make([]UnresolvedIssue, len(p.UnresolvedIssues))
		for i, u := range p.UnresolvedIssues {
			unresolved[i] = UnresolvedIssue(u)
		}
		sp, err := e.cfg.Store.Pulse(ctx, pulse.ID)
		if err != nil {
			return nil, err
		}
		v := ValidateCompletion(failures, sp.RejectionCount, unresolved)
		if v.Accepted {
			return nil, nil
		}
		n, err := e.cfg.Store.AddRejection(ctx, pulse.ID)
		if err != nil {
			return nil, err
		}
		rejections.Store(int64(n))
		e.emit(Event{Kind: "pulse", WorkflowID: sp.WorkflowID, Stage: string(StagePulsing), PulseID: sp.PlannedID, Status: "CompletionRejected", Text: v.Message})
		res := tools.OpErrorResult(v.Message)
		return &res, nil
	}}
}

// quality is the gates' configuration: the engine's, the guardrails' (a
// project's, as last reloaded), or the repository's file read untrusted
// (commands ignored).
func (e *Engine) quality() (tools.Quality, error) {
	if e.cfg.Quality != nil {
		return *e.cfg.Quality, nil
	}
	return tools.ProjectQuality(e.cfg.Guardrails, e.cfg.Repo.Top())
}

// runGates runs the quality gates on what the pulse changed since it
// started from the workflow branch, in the pulse's sandbox, and records
// the run with the pulse.
func (r *pulseRunner) runGates(ctx context.Context, s *tools.Session, sp store.Pulse) (verify.GateRun, error) {
	if r.gw == nil {
		return verify.GateRun{}, nil // a dry run changed nothing and runs no commands
	}
	q, err := r.e.quality()
	if err != nil {
		return verify.GateRun{}, err
	}
	changed, err := r.changedPaths(ctx)
	if err != nil {
		return verify.GateRun{}, err
	}
	// what the gates test is what the checkpoint commits: the gates'
	// commands (the project's tests) must not have changed it meanwhile
	// (but the preflight's artifacts, which no checkpoint commits)
	artifacts, err := r.gw.Artifacts(ctx)
	if err != nil {
		return verify.GateRun{}, err
	}
	committed := func(ctx context.Context) ([]string, error) {
		paths, err := r.changedPaths(ctx)
		return git.WithoutArtifacts(paths, artifacts), err
	}
	run, err := s.HeldGates(ctx, q.Gates, changed, git.WithoutArtifacts(changed, artifacts), committed)
	if err != nil {
		return run, err
	}
	if err := r.e.cfg.Store.SetPulseGates(ctx, sp.ID, run); err != nil {
		return run, err
	}
	r.e.emit(Event{Kind: "pulse", WorkflowID: r.wf.ID, Stage: string(StagePulsing), PulseID: sp.PlannedID, Status: "QualityGates", Text: run.Summary()})
	return run, nil
}

// changedPaths are the files the pulse changed since it started from the
// workflow head.
func (r *pulseRunner) changedPaths(ctx context.Context) ([]string, error) {
	if r.tree != nil {
		return r.tree.ChangedPaths(ctx)
	}
	return r.gw.ChangedPaths(ctx)
}

// gatedTool runs a check after its tool accepted a call; a non-nil result
// of the check replaces the tool's. schema, when set, is the schema
// offered to the model at each request.
type gatedTool struct {
	tools.Tool
	check  func(ctx context.Context, s *tools.Session, args json.RawMessage) (*tools.Result, error)
	schema func() json.RawMessage
}

func (g gatedTool) Schema() json.RawMessage {
	if g.schema != nil {
		return g.schema()
	}
	return g.Tool.Schema()
}

func (g gatedTool) Run(ctx context.Context, s *tools.Session, args json.RawMessage) (tools.Result, error) {
	res, err := g.Tool.Run(ctx, s, args)
	if err != nil || res.Failed {
		return res, err
	}
	over, err := g.check(ctx, s, args)
	if err != nil {
		return tools.Result{}, err
	}
	if over != nil {
		return *over, nil
	}
	return res, nil
}

// Validate keeps the wrapped tool's schema check.
func (g gatedTool) Validate(args json.RawMessage) error {
	if v, ok := g.Tool.(interface{ Validate(json.RawMessage) error }); ok {
		return v.Validate(args)
	}
	return nil
}
