package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// A dry run (Config.DryRun) takes a workflow through its stages without
// changing the user's repository:
//   - its store and run locks live in a temporary directory (OpenDryRun)
//     that Close removes, so nothing is written under .git and the
//     workflow is not listed, resumed or applied later;
//   - no worktree, branch or commit is made: every agent works in the
//     user's folder, where reads run and writes and commands (shell,
//     run_tests, run_lint, non-read-only MCP tools) are recorded instead;
//   - cards and questions are asked as usual (--yes approves them);
//   - quality gates, which run commands, do not run; Review, which would
//     review a diff that was never made, is skipped and the workflow
//     completes after its pulses;
//   - Engine.Plan is what was recorded, in order, by stage.

// planBook keeps what the dry runs' sessions recorded, by workflow id.
type planBook struct {
	mu    sync.Mutex
	plans map[string]tools.Plan
}

func (b *planBook) add(workflowID string, e tools.DryRunEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.plans == nil {
		b.plans = map[string]tools.Plan{}
	}
	b.plans[workflowID] = append(b.plans[workflowID], e)
}

// Plan is what a dry run of the workflow recorded so far, in order (nil
// for a workflow that was not run dry by this engine).
func (e *Engine) Plan(workflowID string) tools.Plan {
	e.plans.mu.Lock()
	defer e.plans.mu.Unlock()
	return append(tools.Plan(nil), e.plans.plans[workflowID]...)
}

// DryRun reports whether the engine runs workflows dry.
func (e *Engine) DryRun() bool { return e.cfg.DryRun }

// planFor is a session's OnDryRun: each recorded call is kept in the
// workflow's plan under its stage ("pulse pulse-1" for a pulse). nil
// outside dry runs and outside workflows.
func (e *Engine) planFor(ctx context.Context, workflowID string, stage Stage, pulseID string) func(tools.DryRunEntry) {
	if !e.cfg.DryRun || workflowID == "" {
		return nil
	}
	label := string(stage)
	if pulseID != "" {
		label = "pulse " + pulseID
		if p, err := e.cfg.Store.Pulse(ctx, pulseID); err == nil {
			label = "pulse " + p.PlannedID
		}
	}
	return func(entry tools.DryRunEntry) {
		entry.Stage = label
		e.plans.add(workflowID, entry)
		e.emit(Event{Kind: editor.EventDryRunPlan, WorkflowID: workflowID, Stage: string(stage), DryRun: planView(e.Plan(workflowID))})
	}
}

// planView is a dry run's plan as the side panel shows it.
func planView(plan tools.Plan) *editor.DryRunPlanView {
	v := &editor.DryRunPlanView{Entries: make([]editor.DryRunEntryView, len(plan)), Files: []editor.DryRunFileView{}}
	for i, e := range plan {
		v.Entries[i] = editor.DryRunEntryView{Stage: e.Stage, Tool: e.Tool, Action: e.Action, Reason: e.Reason, Path: e.Path, Change: e.Change}
	}
	for _, f := range plan.Files() {
		v.Files = append(v.Files, editor.DryRunFileView{Path: f.Path, Changes: f.Changes})
	}
	return v
}

// stateDir holds the run locks.
func (e *Engine) stateDir() string {
	if e.cfg.StateDir != "" {
		return e.cfg.StateDir
	}
	return e.cfg.Repo.StateDir()
}

// workspace is where a workflow's agents work from Preflight on: its
// worktree, or in a dry run the user's folder (gw nil).
func (e *Engine) workspace(ctx context.Context, wf store.Workflow) (gw *git.Workflow, root string, err error) {
	if e.cfg.DryRun {
		return nil, e.cfg.Repo.Top(), nil
	}
	gw, err = e.worktree(ctx, wf)
	if err != nil {
		return nil, "", err
	}
	return gw, gw.Worktree, nil
}

// completeDryRun ends a dry run after its pulses: nothing was changed,
// so there is nothing to review.
func (e *Engine) completeDryRun(ctx context.Context, wf store.Workflow) error {
	if err := e.next(ctx, wf); err != nil {
		return err
	}
	n := len(e.Plan(wf.ID))
	return e.finish(ctx, wf, store.WorkflowCompleted, fmt.Sprintf("dry run completed: %s planned, nothing was changed (Review skipped: there is no diff to review)", plural(n, "action")))
}

// OpenDryRun opens the git repository at dir for dry runs: like
// OpenProject, but its store is a new one in a temporary directory, and
// Close removes it. Nothing is written to the repository.
func OpenDryRun(ctx context.Context, dir string, trusted *trust.Store) (*Project, error) {
	tmp, err := os.MkdirTemp("", "autarch-dry-run-")
	if err != nil {
		return nil, fmt.Errorf("dry run state: %w", err)
	}
	p, err := openProject(ctx, dir, trusted, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	p.dryRun = tmp
	return p, nil
}

// dryRunStore opens a dry run's store in its temporary directory.
func dryRunStore(ctx context.Context, dir string, redact store.Redactor) (*store.Store, error) {
	return store.Open(ctx, store.Path(filepath.Join(dir, "state")), store.Options{Redact: redact})
}

// checkpoint makes an accepted pulse's checkpoint commit; a dry run
// commits nothing.
func (r *pulseRunner) checkpoint(ctx context.Context, pulseID, summary string) (git.Checkpoint, error) {
	if r.tree != nil {
		return r.tree.Commit(ctx, summary) // lands later, in plan order (parallel.go)
	}
	if r.gw == nil {
		return git.Checkpoint{}, nil
	}
	return r.gw.CompletePulse(ctx, pulseID, summary)
}

// recovery keeps a failed or stopped pulse's uncommitted work; a dry run
// has none.
func (r *pulseRunner) recovery(ctx context.Context, pulseID, reason string) (git.Checkpoint, error) {
	if r.tree != nil {
		return r.tree.Recovery(ctx, reason)
	}
	if r.gw == nil {
		return git.Checkpoint{}, nil
	}
	return r.gw.RecoveryCheckpoint(ctx, pulseID, reason)
}

// committed says what an accepted pulse committed: "1a2b3c4d, +3 −0".
func (r *pulseRunner) committed(cp git.Checkpoint) string {
	if r.gw == nil {
		return "dry run: nothing committed"
	}
	return fmt.Sprintf("%s, +%d −%d", short(cp.Commit), cp.Stats.Additions, cp.Stats.Deletions)
}

// startDryRun starts a dry run of a workflow for the editor and runs it in
// the background on an engine of its own (OpenDryRun's temporary store):
// cards and questions reach the user as usual; at the end the plan is
// shown as a message and in full in the log, and the dry run's state is
// removed.
func (s *Service) startDryRun(ctx context.Context, p editor.NewWorkflowParams) (editor.WorkflowRef, error) {
	folder, err := s.folder()
	if err != nil {
		return editor.WorkflowRef{}, err
	}
	proj, err := OpenDryRun(ctx, folder, nil)
	if err != nil {
		return editor.WorkflowRef{}, err
	}
	cfg := Config{Editor: s.cfg.Editor, Diagnostics: s.cfg.Diagnostics, Log: s.cfg.Log.With("component", "workflow", "dryRun", true), Events: s.onEvent}
	if search, err := s.codeSearch(); err == nil {
		cfg.Search = search.Scopes(proj.Repo)
	}
	e, err := s.dryRunEngine(ctx, proj, cfg)
	if err != nil {
		proj.Close()
		return editor.WorkflowRef{}, err
	}
	wf, err := e.Start(ctx, Task{Text: p.Task, Name: p.Name, Path: Path(p.Path)})
	if err != nil {
		proj.Close()
		return editor.WorkflowRef{}, invalid("%w", err)
	}
	err = s.goRun(ctx, func(ctx context.Context) {
		defer proj.Close()
		defer e.Close()
		wf, err := e.Run(ctx, wf.ID)
		s.endProgress(ctx, wf.ID, "")
		s.reportDryRun(context.WithoutCancel(ctx), wf, err, e.Plan(wf.ID))
	})
	if err != nil {
		proj.Close()
	}
	return editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name}, err
}

// dryRunEngine wires a dry run's engine as the session's own.
func (s *Service) dryRunEngine(ctx context.Context, proj *Project, cfg Config) (*Engine, error) {
	if s.cfg.Wire != nil {
		if err := s.cfg.Wire(ctx, proj, &cfg); err != nil {
			return nil, err
		}
	}
	return proj.Engine(ctx, cfg)
}

// reportDryRun shows how a dry run ended and its plan: a message, the
// whole plan in the log, and the side panel's last plan event, which says
// the dry run ended (its pending cards and questions can no longer be
// answered: the panel drops them).
func (s *Service) reportDryRun(ctx context.Context, wf store.Workflow, err error, plan tools.Plan) {
	summary := plan.Summary()
	if lerr := s.cfg.Editor.LogMessage(ctx, editor.Info, fmt.Sprintf("Autarch: dry run of workflow %s:\n%s", wf.Name, summary)); lerr != nil {
		s.cfg.Log.Debug("dry-run plan not logged", "err", lerr)
	}
	typ, msg := dryRunOutcome(wf, err, len(plan))
	if ctx.Err() != nil {
		s.cfg.Log.Info("dry run ended with the session", "workflow", wf.Name, "err", err)
	} else {
		s.tell(ctx, typ, msg)
	}
	view := planView(plan)
	view.Ended, view.Outcome = true, strings.TrimPrefix(msg, "Autarch: ")
	s.onEvent(Event{Kind: editor.EventDryRunPlan, WorkflowID: wf.ID, Stage: string(wf.Stage), DryRun: view})
}

// dryRunOutcome says how a dry run ended and what to do next.
func dryRunOutcome(wf store.Workflow, err error, planned int) (editor.MessageType, string) {
	var h *Halt
	switch {
	case err == nil && wf.Status == store.WorkflowCompleted:
		return editor.Info, fmt.Sprintf("Autarch: dry run of %s done: %s planned, nothing was changed. The plan is in the Autarch panel (Dry run plan) and the Autarch log (Autarch: Show Log).", wf.Name, plural(planned, "action"))
	case errors.Is(err, ErrWaiting):
		return editor.Warning, fmt.Sprintf("Autarch: the dry run of %s ended in %s: what it asked was dismissed, and a dry run keeps nothing to answer later; nothing was changed. Start it again to go further; what it planned so far is in the Autarch panel and log.", wf.Name, wf.Stage)
	case err == nil, errors.As(err, &h):
		return editor.Warning, fmt.Sprintf("Autarch: the dry run of %s stopped in %s before its pulses were done (%s); nothing was changed, and a dry run keeps nothing to resume: start it again to go further. What it planned so far is in the Autarch panel and log.", wf.Name, wf.Stage, stopReason(wf, err))
	default:
		return editor.Error, fmt.Sprintf("Autarch: the dry run of %s failed: %v; nothing was changed.", wf.Name, err)
	}
}

func stopReason(wf store.Workflow, err error) string {
	if err != nil {
		return err.Error()
	}
	return wf.StatusReason
}
