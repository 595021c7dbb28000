package workflow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Revert and redo (issue 32). Each pulse is one checkpoint commit on the
// workflow branch, whatever made the change (edits, shell commands,
// generated files), so undoing a pulse is a revert commit of it: history
// is kept, nothing is force-pushed, the user's branch is never touched.
// Reverting a pulse undoes the later pulses that depend on it too (the
// plan's dependsOn, transitively; in a plan without dependsOn every later
// pulse), newest first, and rewinds the workflow: those pulses are
// Proposed again with their original instructions, the conversation of
// their runs and the stage's notes are set aside (kept, no longer shown
// to the agent), the review comments on the reverted lines are resolved,
// and the workflow is Stopped in Pulsing, so that resume (or redo, with
// new guidance) runs them again through the same gates.
//
// Crash safety: the revert is recorded (store.StartRevert) before git is
// touched; the revert commits are made as objects and the branch moved to
// the last of them in one compare-and-swap under the ref lock (all or
// none), each carrying git.RevertTrailer; the records are rewound in one
// transaction. A process killed anywhere leaves a revert that the next
// Revert, Resume or Redo finishes.

// RevertPlan is what reverting a pulse undoes: the confirmation a person
// sees before it happens (PlanRevert) and the record of what happened.
type RevertPlan struct {
	WorkflowID string `json:"workflowId"`
	Workflow   string `json:"workflow"`
	// Branch is the workflow branch the revert commits go on.
	Branch string `json:"branch"`
	// Pulse is the pulse asked for (its planned id).
	Pulse string `json:"pulse"`
	// Pulses are the pulses rewound, in plan order: Pulse and the later
	// pulses that depend on it.
	Pulses []RevertPulse `json:"pulses"`
	// Files are the files the undone commits change, sorted.
	Files []string `json:"files"`
	// AppliedTo names the user's branch when it already has commits being
	// undone (the workflow was applied): the revert does not change it.
	AppliedTo string `json:"appliedTo,omitempty"`
}

// RevertPulse is one pulse a revert rewinds.
type RevertPulse struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Status PulseStatus `json:"status"`
	// Commit is the checkpoint commit undone ("" when the pulse has none on
	// the branch: not run, or failed).
	Commit  string   `json:"commit,omitempty"`
	Summary string   `json:"summary,omitempty"`
	Files   []string `json:"files,omitempty"`
}

// Commits are the checkpoint commits the plan undoes, newest first.
func (p RevertPlan) Commits() []string {
	var out []string
	for i := len(p.Pulses) - 1; i >= 0; i-- {
		if c := p.Pulses[i].Commit; c != "" {
			out = append(out, c)
		}
	}
	return out
}

// IDs are the planned ids of the pulses rewound.
func (p RevertPlan) IDs() []string {
	ids := make([]string, len(p.Pulses))
	for i, x := range p.Pulses {
		ids[i] = x.ID
	}
	return ids
}

// RevertResult is a finished revert.
type RevertResult struct {
	Plan RevertPlan `json:"plan"`
	// RevertID is the store's record of the revert.
	RevertID string `json:"revertId"`
	// Commits are the revert commits on the workflow branch, in order.
	Commits []git.Revert `json:"commits"`
	// Resolved counts the review comments the revert resolved.
	Resolved int `json:"resolved"`
	// Message says what happened and what to do next.
	Message  string         `json:"message"`
	Workflow store.Workflow `json:"-"`
}

// RevertOptions tune Revert.
type RevertOptions struct {
	// Applied confirms a revert of a workflow already applied to the
	// user's branch (which keeps those changes until the workflow is
	// applied again).
	Applied bool

	// die, in tests, is called at each step of a revert ("commit" after
	// each revert commit is made, "git" once the branch moved) to stop
	// the process there.
	die func(step string)
}

// ErrApplied refuses to revert a workflow already applied to the user's
// branch unless RevertOptions.Applied confirms it.
var ErrApplied = errors.New("the workflow was already applied")

// PlanRevert says what reverting pulse (a planned id such as "pulse-2", or
// its number) of the workflow would undo, without changing anything.
func (e *Engine) PlanRevert(ctx context.Context, idOrName, pulse string) (RevertPlan, error) {
	wf, err := e.Find(ctx, idOrName)
	if err != nil {
		return RevertPlan{}, err
	}
	return e.planRevert(ctx, wf, pulse)
}

// Revert undoes pulse (a planned id or its number) and the later pulses
// that depend on it on the workflow branch, and rewinds the workflow (see
// the package's revert notes above). The workflow must be completed,
// halted, stopped, failed or waiting, and run by no process. An
// unfinished revert of the workflow is finished first.
func (e *Engine) Revert(ctx context.Context, idOrName, pulse string, opts RevertOptions) (RevertResult, error) {
	wf, err := e.Find(ctx, idOrName)
	if err != nil {
		return RevertResult{}, err
	}
	unlock, err := e.lockRun(wf.ID)
	if err != nil {
		return RevertResult{}, fmt.Errorf("workflow %s is running in another autarch process: stop it first (autarch stop %s), then revert: %w", wf.Name, wf.Name, err)
	}
	defer unlock()
	switch wf.Status {
	case store.WorkflowActive:
		return RevertResult{}, fmt.Errorf("workflow %s is running: stop it first (autarch stop %s), then revert", wf.Name, wf.Name)
	case store.WorkflowAbandoned:
		return RevertResult{}, fmt.Errorf("workflow %s was abandoned: there is nothing to revert", wf.Name)
	}
	finished, err := e.finishOpenRevert(ctx, wf, opts)
	if err != nil {
		return RevertResult{}, err
	}
	if finished != nil {
		if wf, err = e.cfg.Store.Workflow(ctx, wf.ID); err != nil {
			return RevertResult{}, err
		}
	}
	plan, err := e.planRevert(ctx, wf, pulse)
	if err != nil {
		if finished != nil && slices.Contains(finished.Plan.IDs(), e.resolvePulseName(ctx, wf, pulse)) {
			return *finished, nil // the interrupted revert was this one
		}
		return RevertResult{}, err
	}
	if plan.AppliedTo != "" && !opts.Applied {
		return RevertResult{}, fmt.Errorf("%w to %s: %s keeps those changes whatever happens to %s. Confirm the revert (autarch revert --applied), then Apply the workflow again to bring it to %s: %s",
			ErrApplied, plan.AppliedTo, plan.AppliedTo, plan.Branch, plan.AppliedTo, strings.Join(plan.IDs(), ", "))
	}
	gw, err := e.cfg.Repo.OpenWorkflow(ctx, wf.Name, wf.BaseCommit)
	if err != nil {
		return RevertResult{}, err
	}
	head, err := gw.Head(ctx)
	if err != nil {
		return RevertResult{}, err
	}
	rev := store.Revert{WorkflowID: wf.ID, Pulse: plan.Pulse, Pulses: plan.IDs(), Commits: plan.Commits(), HeadBefore: head,
		PriorStage: wf.Stage, PriorStatus: wf.Status}
	pulses, err := e.plannedPulses(ctx, wf)
	if err != nil {
		return RevertResult{}, err
	}
	for _, p := range pulses {
		if slices.Contains(rev.Pulses, p.PlannedID) {
			rev.Snapshot = append(rev.Snapshot, p)
		}
	}
	reason := fmt.Sprintf("reverting %s: if this was interrupted, autarch revert or autarch resume finishes it", strings.Join(rev.Pulses, ", "))
	if err := e.cfg.Store.StartRevert(ctx, &rev, reason); err != nil {
		return RevertResult{}, err
	}
	res, err := e.finishRevert(ctx, wf, gw, rev, opts)
	if err != nil {
		return res, err
	}
	res.Plan = plan
	if plan.AppliedTo != "" {
		res.Message += fmt.Sprintf(" %s was already applied to %s, which still has those changes: Apply the workflow again to bring the revert there.", wf.Name, plan.AppliedTo)
	}
	return res, nil
}

// planRevert resolves the pulse and what reverting it undoes.
func (e *Engine) planRevert(ctx context.Context, wf store.Workflow, pulse string) (RevertPlan, error) {
	switch Stage(wf.Stage) {
	case StagePulsing, StageReview, StageDone:
	default:
		return RevertPlan{}, fmt.Errorf("workflow %s is in %s: no pulse has run yet, so there is nothing to revert", wf.Name, wf.Stage)
	}
	if e.cfg.DryRun {
		return RevertPlan{}, errors.New("a dry run changes nothing, so there is nothing to revert")
	}
	pulses, err := e.plannedPulses(ctx, wf)
	if err != nil {
		return RevertPlan{}, err
	}
	target, err := findPulse(wf, pulses, pulse)
	if err != nil {
		return RevertPlan{}, err
	}
	if target.Status != PulseSucceeded {
		if target.RevertedBy != "" && target.Status == PulseProposed {
			return RevertPlan{}, fmt.Errorf("pulse %s of %s is already reverted: run it again with autarch redo %s %s", target.PlannedID, wf.Name, wf.Name, target.PlannedID)
		}
		return RevertPlan{}, fmt.Errorf("pulse %s of %s is %s, not done: only a completed pulse can be reverted", target.PlannedID, wf.Name, target.Status)
	}
	gw, err := e.cfg.Repo.OpenWorkflow(ctx, wf.Name, wf.BaseCommit)
	if err != nil {
		return RevertPlan{}, err
	}
	plan := RevertPlan{WorkflowID: wf.ID, Workflow: wf.Name, Branch: gw.Branch, Pulse: target.PlannedID}
	files := map[string]bool{}
	for _, p := range dependents(pulses, target) {
		rp := RevertPulse{ID: p.PlannedID, Title: p.Title, Status: p.Status}
		if p.Status == PulseSucceeded && p.CheckpointCommit != "" && !p.IsRecoveryCheckpoint {
			landed, err := gw.Landed(ctx, p.CheckpointCommit)
			if err != nil {
				return RevertPlan{}, err
			}
			if landed {
				rp.Commit, rp.Summary = p.CheckpointCommit, p.Summary
				d, err := e.cfg.Repo.Diff(ctx, p.CheckpointCommit+"^", p.CheckpointCommit)
				if err != nil {
					return RevertPlan{}, err
				}
				for _, f := range d.Files {
					rp.Files = append(rp.Files, f.Path)
					files[f.Path] = true
				}
			}
		}
		plan.Pulses = append(plan.Pulses, rp)
	}
	plan.Files = sortedKeys(files)
	if err := e.orderByBranch(ctx, gw, &plan); err != nil {
		return RevertPlan{}, err
	}
	if wf.BaseBranch != "" {
		for _, c := range plan.Commits() {
			applied, err := e.cfg.Repo.IsAncestor(ctx, c, "refs/heads/"+wf.BaseBranch)
			if err != nil {
				return RevertPlan{}, err
			}
			if applied {
				plan.AppliedTo = wf.BaseBranch
				break
			}
		}
	}
	return plan, nil
}

// orderByBranch sorts the plan's pulses with commits in the order their
// commits are on the branch (parallel pulses land in that order), so
// Commits undoes the newest first.
func (e *Engine) orderByBranch(ctx context.Context, gw *git.Workflow, plan *RevertPlan) error {
	commits, err := gw.Commits(ctx)
	if err != nil {
		return err
	}
	at := map[string]int{}
	for i, c := range commits {
		at[c.Hash] = i
	}
	slices.SortStableFunc(plan.Pulses, func(a, b RevertPulse) int {
		if a.Commit == "" || b.Commit == "" {
			return 0
		}
		return at[a.Commit] - at[b.Commit]
	})
	return nil
}

// dependents are target and the pulses that depend on it, transitively
// (a plan without dependsOn is sequential: every later pulse), in plan
// order.
func dependents(pulses []store.Pulse, target store.Pulse) []store.Pulse {
	sequential := true
	for _, p := range pulses {
		if len(p.DependsOn) > 0 {
			sequential = false
		}
	}
	in := map[string]bool{target.PlannedID: true}
	for changed := true; changed; {
		changed = false
		for _, p := range pulses {
			if in[p.PlannedID] {
				continue
			}
			later := p.Seq > target.Seq
			if sequential && later {
				in[p.PlannedID], changed = true, true
				continue
			}
			for _, d := range p.DependsOn {
				if in[d] {
					in[p.PlannedID], changed = true, true
					break
				}
			}
		}
	}
	var out []store.Pulse
	for _, p := range pulses {
		if in[p.PlannedID] {
			out = append(out, p)
		}
	}
	return out
}

// findPulse finds a pulse by planned id or number ("pulse-2" or "2").
func findPulse(wf store.Workflow, pulses []store.Pulse, name string) (store.Pulse, error) {
	name = strings.TrimSpace(name)
	for _, p := range pulses {
		if p.PlannedID == name {
			return p, nil
		}
	}
	if n, err := strconv.Atoi(name); err == nil {
		for _, p := range pulses {
			if p.PlannedID == fmt.Sprintf("pulse-%d", n) {
				return p, nil
			}
		}
		for _, p := range pulses {
			if p.Seq == n {
				return p, nil
			}
		}
	}
	ids := make([]string, len(pulses))
	for i, p := range pulses {
		ids[i] = p.PlannedID
	}
	return store.Pulse{}, fmt.Errorf("workflow %s has no pulse %q: its pulses are %s", wf.Name, name, strings.Join(ids, ", "))
}

// resolvePulseName is the planned id pulse names ("" when none).
func (e *Engine) resolvePulseName(ctx context.Context, wf store.Workflow, pulse string) string {
	pulses, err := e.plannedPulses(ctx, wf)
	if err != nil {
		return ""
	}
	p, err := findPulse(wf, pulses, pulse)
	if err != nil {
		return ""
	}
	return p.PlannedID
}

// finishOpenRevert finishes the workflow's unfinished revert, if any (a
// process died during it); nil when there was none. The caller holds the
// run lock.
func (e *Engine) finishOpenRevert(ctx context.Context, wf store.Workflow, opts RevertOptions) (*RevertResult, error) {
	rev, err := e.cfg.Store.OpenRevert(ctx, wf.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	gw, err := e.cfg.Repo.OpenWorkflow(ctx, wf.Name, wf.BaseCommit)
	if err != nil {
		return nil, err
	}
	res, err := e.finishRevert(ctx, wf, gw, rev, opts)
	if err != nil {
		return nil, fmt.Errorf("finish the interrupted revert of %s: %w", strings.Join(rev.Pulses, ", "), err)
	}
	res.Message = "finished an interrupted revert: " + res.Message
	e.cfg.Log.Info("finished an interrupted revert", "workflow", wf.Name, "pulses", rev.Pulses)
	return &res, nil
}

// finishRevert does a Started revert's git side (idempotently) and rewinds
// the records.
func (e *Engine) finishRevert(ctx context.Context, wf store.Workflow, gw *git.Workflow, rev store.Revert, opts RevertOptions) (RevertResult, error) {
	ctx = context.WithoutCancel(ctx) // half a revert helps no one
	gopts := git.RevertOptions{Since: rev.HeadBefore}
	if opts.die != nil {
		gopts.AfterCommit = func(int) { opts.die("commit") }
	}
	made, err := gw.Revert(ctx, rev.Commits, rev.Pulses, gopts)
	var conflict *git.RevertConflict
	if errors.As(err, &conflict) {
		return RevertResult{}, errors.Join(e.cancelRevert(ctx, rev), fmt.Errorf("%w: later pulses build on those lines; revert from an earlier pulse instead (nothing was changed)", err))
	}
	if err != nil {
		return RevertResult{}, err
	}
	if opts.die != nil {
		opts.die("git")
	}
	head, err := gw.Head(ctx)
	if err != nil {
		return RevertResult{}, err
	}
	resolved, err := e.revertedComments(ctx, wf, rev.HeadBefore, head)
	if err != nil {
		return RevertResult{}, err
	}
	commits := make([]store.RevertCommit, len(made))
	for i, m := range made {
		commits[i] = store.RevertCommit(m)
	}
	first := rev.Pulses[0]
	reason := fmt.Sprintf("%s reverted (%s): run them again with autarch redo %s %s, or autarch resume %s",
		strings.Join(rev.Pulses, ", "), plural(len(made), "revert commit"), wf.Name, first, wf.Name)
	if err := e.cfg.Store.FinishRevert(ctx, rev.ID, store.RevertRewind{RevertCommits: commits, Comments: resolved,
		Stage: string(StagePulsing), Reason: reason}); err != nil {
		return RevertResult{}, err
	}
	wf, err = e.cfg.Store.Workflow(ctx, wf.ID)
	if err != nil {
		return RevertResult{}, err
	}
	for _, id := range rev.Pulses {
		e.emit(Event{Kind: "pulse", WorkflowID: wf.ID, Stage: string(StagePulsing), PulseID: id, Status: string(PulseProposed), Text: "reverted"})
	}
	e.emit(Event{Kind: "halt", WorkflowID: wf.ID, Stage: wf.Stage, Status: string(wf.Status), Text: reason})
	plan := RevertPlan{WorkflowID: wf.ID, Workflow: wf.Name, Branch: gw.Branch, Pulse: rev.Pulse}
	for _, p := range rev.Snapshot {
		rp := RevertPulse{ID: p.PlannedID, Title: p.Title, Status: p.Status}
		if slices.Contains(rev.Commits, p.CheckpointCommit) {
			rp.Commit, rp.Summary = p.CheckpointCommit, p.Summary
		}
		plan.Pulses = append(plan.Pulses, rp)
	}
	return RevertResult{Plan: plan, RevertID: rev.ID, Commits: made, Resolved: len(resolved), Workflow: wf, Message: reason + "."}, nil
}

// cancelRevert forgets a revert that could not be made (nothing changed)
// and gives the workflow its status back.
func (e *Engine) cancelRevert(ctx context.Context, rev store.Revert) error {
	return e.cfg.Store.CancelRevert(ctx, rev.ID, rev.PriorStatus, "the revert of "+strings.Join(rev.Pulses, ", ")+" could not be made; nothing was changed")
}

// revertedComments are the workflow's review comments on lines the revert
// undid: line comments on lines changed between after and before (on the
// before side, where the review saw them), file comments on files it
// changed.
func (e *Engine) revertedComments(ctx context.Context, wf store.Workflow, before, after string) ([]string, error) {
	card, err := e.cfg.Store.LatestReview(ctx, wf.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	comments, err := e.cfg.Store.Comments(ctx, card.ID)
	if err != nil || len(comments) == 0 {
		return nil, err
	}
	d, err := e.cfg.Repo.DiffCommits(ctx, after, before)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range comments {
		if c.ResolvedBy != "" || c.Type == store.CommentReview {
			continue
		}
		f, ok := d.File(c.FilePath)
		if ok && (c.Type == store.CommentFile || f.Touches(c.StartLine, c.EndLine)) {
			out = append(out, c.ID)
		}
	}
	return out, nil
}

// MarkRedo records guidance ("" for none) for the next run of a reverted
// pulse (a planned id or its number), finishing an interrupted revert
// first. Resume then runs it, through the same gates; Redo does both.
func (e *Engine) MarkRedo(ctx context.Context, idOrName, pulse, guidance string) (store.Workflow, error) {
	wf, err := e.Find(ctx, idOrName)
	if err != nil {
		return wf, err
	}
	unlock, err := e.lockRun(wf.ID)
	if err != nil {
		return wf, err
	}
	defer unlock()
	if _, err := e.finishOpenRevert(ctx, wf, RevertOptions{}); err != nil {
		return wf, err
	}
	if wf, err = e.cfg.Store.Workflow(ctx, wf.ID); err != nil {
		return wf, err
	}
	pulses, err := e.plannedPulses(ctx, wf)
	if err != nil {
		return wf, err
	}
	p, err := findPulse(wf, pulses, pulse)
	if err != nil {
		return wf, err
	}
	if p.RevertedBy == "" || p.Status != PulseProposed {
		return wf, fmt.Errorf("pulse %s of %s was not reverted (it is %s): revert it first with autarch revert %s %s", p.PlannedID, wf.Name, p.Status, wf.Name, p.PlannedID)
	}
	return wf, e.cfg.Store.SetPulseGuidance(ctx, p.ID, strings.TrimSpace(guidance))
}

// Redo runs a reverted pulse again (MarkRedo, then Resume).
func (e *Engine) Redo(ctx context.Context, idOrName, pulse, guidance string) (store.Workflow, error) {
	wf, err := e.MarkRedo(ctx, idOrName, pulse, guidance)
	if err != nil {
		return wf, err
	}
	return e.Resume(ctx, wf.ID)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
