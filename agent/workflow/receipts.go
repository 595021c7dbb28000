package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/receipt"
	"github.com/autarch-dev/autarch/tools/verify"
)

// recordReceipt writes the completion receipt of a pulse's checkpoint
// commit (issue 32): the pulse's last quality-gate run (the one that let
// it complete, or the one after its rebase), the gates' configuration and
// the preflight baselines it was matched against. The commit is made
// whatever happens here: a receipt that cannot be written is logged and
// said in the pulse's events (autarch receipt verify then reports the
// commit has none).
func (e *Engine) recordReceipt(ctx context.Context, wf store.Workflow, sp store.Pulse, commit string) {
	if e.cfg.DryRun || commit == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if err := e.writeReceipt(ctx, wf, sp, commit); err != nil {
		e.cfg.Log.Warn("write the pulse's receipt", "pulse", sp.PlannedID, "commit", commit, "err", err)
		e.emit(Event{Kind: "pulse", WorkflowID: wf.ID, Stage: string(StagePulsing), PulseID: sp.PlannedID, Status: "Receipt",
			Text: fmt.Sprintf("the receipt of checkpoint %s could not be written (%v); the commit is kept without one", short(commit), err)})
	}
}

func (e *Engine) writeReceipt(ctx context.Context, wf store.Workflow, sp store.Pulse, commit string) error {
	cur, err := e.cfg.Store.Pulse(ctx, sp.ID)
	if err != nil {
		return err
	}
	var run verify.GateRun
	if cur.Gates != nil {
		run = *cur.Gates
	}
	q, err := e.quality()
	if err != nil {
		return err
	}
	baselines, err := e.baselines(ctx, wf)
	if err != nil {
		return err
	}
	_, err = receipt.Record(ctx, e.cfg.Repo, receipt.Subject{Kind: receipt.Pulse, Commit: commit,
		Run:   receipt.Run{Kind: "workflow", ID: wf.ID, Name: wf.Name, Step: sp.PlannedID},
		Gates: q.Gates, Baselines: baselines, BaselineCommit: wf.BaseCommit}, run)
	return err
}

// PulseReceipt is the completion receipt of a pulse's checkpoint commit,
// for the side panel: ok is false when the pulse has no commit yet or the
// commit has no receipt (a dry run, a pulse committed before receipts).
func (s *Service) PulseReceipt(ctx context.Context, workflowID, pulseID string) (r receipt.Receipt, ok bool, err error) {
	e, wf, err := s.find(ctx, editor.WorkflowRef{WorkflowID: workflowID})
	if err != nil {
		return receipt.Receipt{}, false, err
	}
	return e.PulseReceipt(ctx, wf, pulseID)
}

// PulseReceipt is the completion receipt of a workflow's pulse (its plan
// id): ok is false when the pulse has no checkpoint commit or the commit
// has no receipt.
func (e *Engine) PulseReceipt(ctx context.Context, wf store.Workflow, pulseID string) (receipt.Receipt, bool, error) {
	p, err := e.pulseByID(ctx, wf.ID, pulseID)
	if err != nil {
		return receipt.Receipt{}, false, invalid("%w", err)
	}
	if p.CheckpointCommit == "" || p.IsRecoveryCheckpoint {
		return receipt.Receipt{}, false, nil
	}
	r, err := receipt.Read(ctx, e.cfg.Repo, p.CheckpointCommit)
	if errors.Is(err, receipt.ErrNoReceipt) {
		return receipt.Receipt{}, false, nil
	}
	if err != nil {
		return receipt.Receipt{}, false, err
	}
	return r, true, nil
}

// backfillReceipts writes the receipts a killed process did not: those
// of succeeded pulses whose checkpoint commit has none (the process died
// between the commit and its note). Pulsing runs it when it starts or
// resumes.
func (e *Engine) backfillReceipts(ctx context.Context, wf store.Workflow, pulses []store.Pulse) {
	if e.cfg.DryRun {
		return
	}
	for _, p := range pulses {
		if p.Status != PulseSucceeded || p.CheckpointCommit == "" || p.IsRecoveryCheckpoint {
			continue
		}
		if _, ok, err := e.cfg.Repo.Note(ctx, p.CheckpointCommit); err != nil || ok {
			continue // a commit that cannot be read is the pulse's problem, reported where it runs
		}
		e.recordReceipt(ctx, wf, p, p.CheckpointCommit)
	}
}
