package store

import (
	"context"
	"fmt"
	"time"
)

// RevertStatus is where a revert stands.
type RevertStatus string

// Revert statuses: Started (recorded before git is touched: the intent)
// → Done (the workflow's records rewound).
const (
	RevertStarted RevertStatus = "Started"
	RevertDone    RevertStatus = "Done"
)

// RevertCommit is a revert commit made on the workflow branch and the
// checkpoint commit it undoes.
type RevertCommit struct {
	Commit  string `json:"commit"`
	Reverts string `json:"reverts"`
}

// Revert is the undoing of a pulse and the pulses after it that depend on
// it: revert commits on the workflow branch and the pulses rewound to
// Proposed.
type Revert struct {
	ID         string
	WorkflowID string
	// Pulse is the planned id the user asked to revert.
	Pulse string
	// Pulses are the planned ids rewound, in plan order.
	Pulses []string
	// Commits are the checkpoint commits to undo, newest first.
	Commits []string
	// HeadBefore is the workflow head before the first revert commit.
	HeadBefore string
	// RevertCommits are the revert commits made (set when Done).
	RevertCommits []RevertCommit
	// Snapshot is the rewound pulses as they were (one per Pulses entry):
	// FinishRevert rewinds these records.
	Snapshot    []Pulse
	PriorStage  string
	PriorStatus WorkflowStatus
	Status      RevertStatus
	CreatedAt   time.Time
	FinishedAt  time.Time
}

const revertCols = `id, workflow_id, pulse, pulses, commits, head_before, revert_commits, snapshot, prior_stage, prior_status, status,
	created_at, finished_at`

func scanRevert(row interface{ Scan(...any) error }) (Revert, error) {
	var r Revert
	var pulses, commits, reverts, snapshot string
	if err := row.Scan(&r.ID, &r.WorkflowID, &r.Pulse, &pulses, &commits, &r.HeadBefore, &reverts, &snapshot, &r.PriorStage,
		&r.PriorStatus, &r.Status, stampTo(&r.CreatedAt), stampTo(&r.FinishedAt)); err != nil {
		return Revert{}, err
	}
	return r, firstErr(fromJSON(pulses, &r.Pulses), fromJSON(commits, &r.Commits), fromJSON(reverts, &r.RevertCommits),
		fromJSON(snapshot, &r.Snapshot))
}

// StartRevert records a revert's intent (Started) before anything is
// undone, and marks the workflow Stopped with reason, in one transaction:
// a process killed after this leaves a revert that FinishRevert completes
// and a workflow no one runs meanwhile. ID and CreatedAt are filled.
func (o ops) StartRevert(ctx context.Context, r *Revert, reason string) error {
	if len(r.Pulses) == 0 {
		return fmt.Errorf("start revert: no pulse to revert")
	}
	ensureID(&r.ID, "revert")
	r.Status, r.CreatedAt = RevertStarted, o.clock()
	pulses, err1 := toJSON(r.Pulses)
	commits, err2 := toJSON(r.Commits)
	snapshot, err3 := toJSON(r.Snapshot)
	if err := firstErr(err1, err2, err3); err != nil {
		return fmt.Errorf("start revert: %w", err)
	}
	return o.atomic(ctx, func(o ops) error {
		if _, err := o.OpenRevert(ctx, r.WorkflowID); err == nil {
			return fmt.Errorf("start revert: workflow %s has an unfinished revert; finish it first", r.WorkflowID)
		}
		if _, err := o.q.ExecContext(ctx, `INSERT INTO reverts (id, workflow_id, pulse, pulses, commits, head_before, snapshot, prior_stage,
			prior_status, status, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)`, r.ID, r.WorkflowID, r.Pulse, pulses, commits, r.HeadBefore,
			snapshot, r.PriorStage, r.PriorStatus, r.Status, stamp(r.CreatedAt)); err != nil {
			return fmt.Errorf("start revert: %w", err)
		}
		return o.SetWorkflowStatus(ctx, r.WorkflowID, WorkflowStopped, reason)
	})
}

// OpenRevert is the workflow's unfinished (Started) revert, ErrNotFound
// when there is none.
func (o ops) OpenRevert(ctx context.Context, workflowID string) (Revert, error) {
	return queryOne(ctx, o, scanRevert, "unfinished revert of workflow", workflowID, `SELECT `+revertCols+` FROM reverts WHERE workflow_id=? AND status='Started'
		ORDER BY created_at, rowid LIMIT 1`, workflowID)
}

// Reverts lists the workflow's reverts, oldest first.
func (o ops) Reverts(ctx context.Context, workflowID string) ([]Revert, error) {
	return queryAll(ctx, o, scanRevert, "reverts", `SELECT `+revertCols+` FROM reverts WHERE workflow_id=? ORDER BY created_at, rowid`, workflowID)
}

// RevertRewind is what FinishRevert rewinds besides the pulses.
type RevertRewind struct {
	// RevertCommits are the revert commits made.
	RevertCommits []RevertCommit
	// Comments are the review comments on the reverted lines, resolved.
	Comments []string
	// Stage is the stage the workflow goes back to (pulsing).
	Stage string
	// Reason is the workflow's status reason (it stays Stopped).
	Reason string
}

// FinishRevert rewinds the workflow's records for a Started revert, in one
// transaction: its pulses become Proposed again with their original
// instructions (RevertedBy set, the results of their runs cleared; the
// revert's snapshot keeps them), their conversation and the stage's notes
// are set aside, their leases dropped, the review comments resolved, the
// workflow moved back to rw.Stage (Stopped, rw.Reason), and the revert
// Done.
func (o ops) FinishRevert(ctx context.Context, id string, rw RevertRewind) error {
	reverts, err := toJSON(rw.RevertCommits)
	if err != nil {
		return fmt.Errorf("finish revert %s: %w", id, err)
	}
	return o.atomic(ctx, func(o ops) error {
		r, err := scanRevert(o.q.QueryRowContext(ctx, `SELECT `+revertCols+` FROM reverts WHERE id=?`, id))
		if err != nil {
			return notFound(err, "revert", id)
		}
		if r.Status != RevertStarted {
			return fmt.Errorf("finish revert %s: it is %s", id, r.Status)
		}
		for _, p := range r.Snapshot {
			pulseID, planned := p.ID, p.PlannedID
			if _, err := o.q.ExecContext(ctx, `UPDATE pulses SET status='Proposed', initiating_message_id=0, summary='', checkpoint_commit='',
				pulse_branch='', worktree_path='', diff_files=0, diff_additions=0, diff_deletions=0, is_recovery_checkpoint=0,
				unresolved_issues='null', failure_reason='', rejection_count=0, extension_count=0, failures='null', gate_run='null',
				diff_artifact_id='', started_at=NULL, ended_at=NULL, reverted_by=?, guidance='' WHERE id=?`, id, pulseID); err != nil {
				return fmt.Errorf("finish revert %s: rewind pulse %s: %w", id, planned, err)
			}
			if _, err := o.q.ExecContext(ctx, `UPDATE messages SET set_aside_by=? WHERE run_id=? AND pulse_id=? AND set_aside_by=''`,
				id, r.WorkflowID, pulseID); err != nil {
				return fmt.Errorf("finish revert %s: set aside the conversation of %s: %w", id, planned, err)
			}
			if _, err := o.q.ExecContext(ctx, `DELETE FROM pulse_leases WHERE pulse_id=?`, pulseID); err != nil {
				return fmt.Errorf("finish revert %s: %w", id, err)
			}
		}
		if _, err := o.q.ExecContext(ctx, `UPDATE notes SET set_aside_by=? WHERE workflow_id=? AND stage=? AND set_aside_by=''`,
			id, r.WorkflowID, rw.Stage); err != nil {
			return fmt.Errorf("finish revert %s: set aside notes: %w", id, err)
		}
		for _, c := range rw.Comments {
			if _, err := o.q.ExecContext(ctx, `UPDATE review_comments SET resolved_by=? WHERE id=? AND resolved_by=''`, id, c); err != nil {
				return fmt.Errorf("finish revert %s: resolve comment %s: %w", id, c, err)
			}
		}
		if _, err := o.q.ExecContext(ctx, `UPDATE workflows SET stage=?, updated_at=? WHERE id=?`, rw.Stage, stamp(o.clock()), r.WorkflowID); err != nil {
			return fmt.Errorf("finish revert %s: %w", id, err)
		}
		if err := o.SetWorkflowStatus(ctx, r.WorkflowID, WorkflowStopped, rw.Reason); err != nil {
			return err
		}
		if _, err := o.q.ExecContext(ctx, `UPDATE reverts SET status='Done', revert_commits=?, finished_at=? WHERE id=?`,
			reverts, stamp(o.clock()), id); err != nil {
			return fmt.Errorf("finish revert %s: %w", id, err)
		}
		return nil
	})
}

// SetPulseGuidance records the user's guidance for a pulse's next run.
func (o ops) SetPulseGuidance(ctx context.Context, pulseID, guidance string) error {
	return o.execOne(ctx, fmt.Sprintf("pulse %s guidance", pulseID), "pulse", pulseID, `UPDATE pulses SET guidance=? WHERE id=?`, guidance, pulseID)
}

// CancelRevert forgets a Started revert that could not be made (nothing
// was changed) and gives the workflow status back, with reason.
func (o ops) CancelRevert(ctx context.Context, id string, status WorkflowStatus, reason string) error {
	return o.atomic(ctx, func(o ops) error {
		var workflowID string
		if err := o.q.QueryRowContext(ctx, `DELETE FROM reverts WHERE id=? AND status='Started' RETURNING workflow_id`, id).Scan(&workflowID); err != nil {
			return notFound(err, "unfinished revert", id)
		}
		return o.SetWorkflowStatus(ctx, workflowID, status, reason)
	})
}
