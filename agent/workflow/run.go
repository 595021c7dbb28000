package workflow

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// errStopped is the cause of a run's context when the workflow was stopped.
var errStopped = errors.New("the workflow was stopped")

// Run takes an active workflow through its stages until it is done, waits
// for the user (ErrWaiting), halts (*Halt), is stopped, or fails. It
// returns the workflow as it was left.
func (e *Engine) Run(ctx context.Context, id string) (store.Workflow, error) {
	wf, err := e.Find(ctx, id)
	if err != nil {
		return wf, err
	}
	if wf.Status != store.WorkflowActive {
		return wf, fmt.Errorf("workflow %s is %s: resume it first", wf.Name, wf.Status)
	}
	ctx, cancel := context.WithCancelCause(editor.WithWorkflow(ctx, wf.ID))
	defer cancel(nil)
	// The halt that ends the run is told once the run has let go of the
	// workflow (its run lock, its place among this process's runs, its
	// worktrees and servers): whoever acts on it at once (revert, redo,
	// resume) finds the workflow free, not "running in another process".
	halts := &heldHalts{}
	ctx = context.WithValue(ctx, heldHaltsKey{}, halts)
	defer halts.emit(e)
	remove, ok := e.running.Add(wf.ID, cancel)
	if !ok {
		return wf, fmt.Errorf("workflow %s is already running", wf.Name)
	}
	defer remove()
	unlock, err := e.lockRun(wf.ID)
	if err != nil {
		return wf, err
	}
	defer unlock()
	defer e.startLangServers(wf.ID)()
	defer e.startMasks(wf.ID)()
	go e.watchStop(ctx, wf.ID, cancel)
	defer e.prepareWorktrees(ctx, wf)()
	for {
		wf, err = e.cfg.Store.Workflow(ctx, wf.ID)
		if err != nil {
			return wf, e.runErr(ctx, err)
		}
		if wf.Status != store.WorkflowActive || Stage(wf.Stage).Terminal() {
			return wf, nil
		}
		if err := e.step(ctx, wf); err != nil {
			wf, _ = e.cfg.Store.Workflow(context.WithoutCancel(ctx), wf.ID)
			err = e.runErr(ctx, err)
			return e.fail(ctx, wf, err), err
		}
	}
}

// fail records a run that ended in an error, with the workflow still
// Active, as Failed with its cause (the provider's refusal, the network's
// fault through every retry, …), so that it is neither left Active nor
// later mistaken for a run that a dying process interrupted. A run that
// waits, halted or was stopped has its status already; one whose context
// ended (the process is stopping) is left for Recover.
func (e *Engine) fail(ctx context.Context, wf store.Workflow, err error) store.Workflow {
	if wf.ID == "" || wf.Status != store.WorkflowActive || ctx.Err() != nil || errors.Is(err, ErrWaiting) {
		return wf
	}
	if ferr := e.finish(ctx, wf, store.WorkflowFailed, err.Error()); ferr != nil {
		e.cfg.Log.Error("record the failed run", "workflow", wf.Name, "cause", err, "err", ferr)
		return wf
	}
	wf.Status, wf.StatusReason = store.WorkflowFailed, err.Error()
	return wf
}

// runErr turns the cancellation of a stopped workflow into a Halt.
func (e *Engine) runErr(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errStopped) {
		return &Halt{Status: PulseStopped, Reason: errStopped.Error()}
	}
	return err
}

// watchStop cancels a run when the workflow is marked Stopped (by this
// process or another).
func (e *Engine) watchStop(ctx context.Context, id string, cancel context.CancelCauseFunc) {
	run.WatchStop(ctx, e.cfg.StopPoll, func(ctx context.Context) bool {
		wf, err := e.cfg.Store.Workflow(ctx, id)
		return err == nil && wf.Status == store.WorkflowStopped
	}, func() { cancel(errStopped) })
}

// step runs the current stage's work to its transition.
func (e *Engine) step(ctx context.Context, wf store.Workflow) error {
	switch Stage(wf.Stage) {
	case StageScoping, StageResearch, StagePlan:
		return e.cards(ctx, wf)
	case StagePreflight:
		return e.preflight(ctx, wf)
	case StagePulsing:
		return e.pulse(ctx, wf)
	case StageReview:
		return e.review(ctx, wf)
	}
	return fmt.Errorf("workflow %s is in stage %q, which runs no work", wf.Name, wf.Stage)
}

// advance moves a workflow to its next stage and clears the notes of the
// stage it leaves.
func (e *Engine) advance(ctx context.Context, wf store.Workflow, to Stage) error {
	err := e.cfg.Store.Update(ctx, func(tx *store.Tx) error {
		if err := tx.AdvanceStage(ctx, wf.ID, wf.Stage, string(to)); err != nil {
			return err
		}
		return tx.ClearNotes(ctx, wf.ID, wf.Stage)
	})
	if err != nil {
		return err
	}
	e.emit(Event{Kind: "stage", WorkflowID: wf.ID, Stage: string(to), From: wf.Stage, Text: fmt.Sprintf("%s → %s", wf.Stage, to)})
	return nil
}

// next advances to the stage that follows wf's on its path.
func (e *Engine) next(ctx context.Context, wf store.Workflow) error {
	to, err := Next(Stage(wf.Stage), Path(wf.Path))
	if err != nil {
		return err
	}
	return e.advance(ctx, wf, to)
}

// finish ends a workflow with a status (Completed, Abandoned, Halted, …).
func (e *Engine) finish(ctx context.Context, wf store.Workflow, status store.WorkflowStatus, reason string) error {
	ctx = context.WithoutCancel(ctx)
	if err := e.cfg.Store.SetWorkflowStatus(ctx, wf.ID, status, reason); err != nil {
		return err
	}
	ev := Event{Kind: "halt", WorkflowID: wf.ID, Stage: wf.Stage, Status: string(status), Text: reason}
	if halts, ok := ctx.Value(heldHaltsKey{}).(*heldHalts); ok {
		halts.hold(ev) // told when Run has let go (Run)
		return nil
	}
	e.emit(ev)
	return nil
}

// heldHaltsKey is the context key of a run's held halt events.
type heldHaltsKey struct{}

// heldHalts are the halt events of a run, told when it ends.
type heldHalts struct {
	mu     sync.Mutex
	events []Event
}

func (h *heldHalts) hold(ev Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.events = append(h.events, ev)
}

func (h *heldHalts) emit(e *Engine) {
	h.mu.Lock()
	events := h.events
	h.events = nil
	h.mu.Unlock()
	for _, ev := range events {
		e.emit(ev)
	}
}
