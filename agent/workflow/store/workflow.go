package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite3 "modernc.org/sqlite/lib"
)

// WorkflowStatus is whether a workflow is moving, waiting or over.
type WorkflowStatus string

// Workflow statuses.
const (
	// WorkflowActive: an agent is working or about to.
	WorkflowActive WorkflowStatus = "Active"
	// WorkflowAwaitingUser: a question, approval or extension is pending.
	WorkflowAwaitingUser WorkflowStatus = "AwaitingUser"
	// WorkflowHalted: orchestration stopped for human review (a failed
	// pulse, unresolved issues).
	WorkflowHalted WorkflowStatus = "Halted"
	// WorkflowStopped: the user stopped it; it can be resumed.
	WorkflowStopped WorkflowStatus = "Stopped"
	// WorkflowFailed: a run failed (the model provider refused, the network
	// failed through every retry, …); StatusReason says why. Resuming it
	// continues from its last durable point.
	WorkflowFailed WorkflowStatus = "Failed"
	// WorkflowCompleted: review done.
	WorkflowCompleted WorkflowStatus = "Completed"
	// WorkflowAbandoned: given up (e.g. preflight failed).
	WorkflowAbandoned WorkflowStatus = "Abandoned"
)

func (s WorkflowStatus) valid() bool {
	switch s {
	case WorkflowActive, WorkflowAwaitingUser, WorkflowHalted, WorkflowStopped, WorkflowFailed, WorkflowCompleted, WorkflowAbandoned:
		return true
	}
	return false
}

func checkWorkflowStatus(s WorkflowStatus) error {
	if !s.valid() {
		return fmt.Errorf("invalid workflow status %q: use Active, AwaitingUser, Halted, Stopped, Failed, Completed or Abandoned", s)
	}
	return nil
}

// checkPath validates a workflow path ("" before scoping decides).
func checkPath(p string) error {
	switch p {
	case "", "quick", "full":
		return nil
	}
	return fmt.Errorf("invalid workflow path %q: use quick or full", p)
}

// Workflow is one workflow: a task taken from Discussion to Review.
type Workflow struct {
	ID   string
	Name string // unique; also the git workflow name
	Task string
	// Stage is the engine's stage name (discussion, scoping, research,
	// plan, preflight, pulsing, review, done, abandoned).
	Stage          string
	Path           string // "quick", "full", or "" before scoping
	BaseBranch     string
	BaseCommit     string
	WorkflowBranch string
	WorktreePath   string
	Status         WorkflowStatus
	StatusReason   string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	EndedAt        time.Time // zero while not over
}

func (w *Workflow) check() error {
	switch {
	case strings.TrimSpace(w.Name) == "":
		return fmt.Errorf("workflow name is required")
	case strings.TrimSpace(w.Stage) == "":
		return fmt.Errorf("workflow stage is required")
	}
	if err := checkPath(w.Path); err != nil {
		return err
	}
	return checkWorkflowStatus(w.Status)
}

const workflowCols = `id, name, task, stage, path, base_branch, base_commit, workflow_branch, worktree_path, status, status_reason, created_at, updated_at, ended_at`

func scanWorkflow(row interface{ Scan(...any) error }) (Workflow, error) {
	var w Workflow
	err := row.Scan(&w.ID, &w.Name, &w.Task, &w.Stage, &w.Path, &w.BaseBranch, &w.BaseCommit, &w.WorkflowBranch,
		&w.WorktreePath, &w.Status, &w.StatusReason, stampTo(&w.CreatedAt), stampTo(&w.UpdatedAt), stampTo(&w.EndedAt))
	return w, err
}

// CreateWorkflow stores a new workflow, filling ID (when empty), Status
// (Active when empty) and the timestamps.
func (o ops) CreateWorkflow(ctx context.Context, w *Workflow) error {
	ensureID(&w.ID, "wf")
	if w.Status == "" {
		w.Status = WorkflowActive
	}
	if err := w.check(); err != nil {
		return err
	}
	now := o.clock()
	w.CreatedAt, w.UpdatedAt = now, now
	_, err := o.q.ExecContext(ctx, `INSERT INTO workflows (`+workflowCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		w.ID, w.Name, w.Task, w.Stage, w.Path, w.BaseBranch, w.BaseCommit, w.WorkflowBranch, w.WorktreePath,
		w.Status, w.StatusReason, stamp(w.CreatedAt), stamp(w.UpdatedAt), stamp(w.EndedAt))
	if err != nil {
		if sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_UNIQUE {
			switch used, qerr := o.nameUsed(ctx, w.Name); {
			case qerr != nil:
				return fmt.Errorf("create workflow %s: %w", w.Name, errors.Join(err, qerr))
			case used:
				return fmt.Errorf("workflow name %q is %w: choose another", w.Name, ErrNameUsed)
			}
		}
		return fmt.Errorf("create workflow %s: %w", w.Name, err)
	}
	return nil
}

// nameUsed reports whether a workflow has the name.
func (o ops) nameUsed(ctx context.Context, name string) (bool, error) {
	var n int
	if err := o.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM workflows WHERE name = ?`, name).Scan(&n); err != nil {
		return false, fmt.Errorf("looking up workflow name %s: %w", name, err)
	}
	return n > 0, nil
}

// Workflow reads a workflow by id.
func (o ops) Workflow(ctx context.Context, id string) (Workflow, error) {
	return queryOne(ctx, o, scanWorkflow, "workflow", id, `SELECT `+workflowCols+` FROM workflows WHERE id = ?`, id)
}

// WorkflowByName reads a workflow by name.
func (o ops) WorkflowByName(ctx context.Context, name string) (Workflow, error) {
	return queryOne(ctx, o, scanWorkflow, "workflow named", name, `SELECT `+workflowCols+` FROM workflows WHERE name = ?`, name)
}

// Workflows lists every workflow, most recently updated first.
func (o ops) Workflows(ctx context.Context) ([]Workflow, error) {
	rows, err := o.q.QueryContext(ctx, `SELECT `+workflowCols+` FROM workflows ORDER BY updated_at DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("list workflows: %w", err)
	}
	defer rows.Close()
	var list []Workflow
	for rows.Next() {
		w, err := scanWorkflow(rows)
		if err != nil {
			return nil, fmt.Errorf("list workflows: %w", err)
		}
		list = append(list, w)
	}
	return list, rows.Err()
}

// UpdateWorkflow writes every field of w except ID, Name and CreatedAt,
// and sets UpdatedAt.
func (o ops) UpdateWorkflow(ctx context.Context, w *Workflow) error {
	if err := w.check(); err != nil {
		return err
	}
	w.UpdatedAt = o.clock()
	return o.execOne(ctx, fmt.Sprintf("update workflow %s", w.ID), "workflow", w.ID, `UPDATE workflows SET task=?, stage=?, path=?, base_branch=?, base_commit=?, workflow_branch=?,
		worktree_path=?, status=?, status_reason=?, updated_at=?, ended_at=? WHERE id=?`,
		w.Task, w.Stage, w.Path, w.BaseBranch, w.BaseCommit, w.WorkflowBranch, w.WorktreePath, w.Status, w.StatusReason,
		stamp(w.UpdatedAt), stamp(w.EndedAt), w.ID)
}

// AdvanceStage moves a workflow from stage from to stage to and clears the
// notes of from (notes are per stage), atomically. It fails if the
// workflow is no longer in from.
func (o ops) AdvanceStage(ctx context.Context, workflowID, from, to string) error {
	if strings.TrimSpace(to) == "" {
		return fmt.Errorf("advance workflow %s: the new stage is required", workflowID)
	}
	return o.atomic(ctx, func(o ops) error {
		w, err := o.Workflow(ctx, workflowID)
		if err != nil {
			return err
		}
		if w.Stage != from {
			return fmt.Errorf("advance workflow %s from %s: it is in stage %s", workflowID, from, w.Stage)
		}
		if _, err := o.q.ExecContext(ctx, `UPDATE workflows SET stage=?, updated_at=? WHERE id=?`, to, stamp(o.clock()), workflowID); err != nil {
			return fmt.Errorf("advance workflow %s: %w", workflowID, err)
		}
		return o.ClearNotes(ctx, workflowID, from)
	})
}

// SetWorkflowStatus sets a workflow's status and reason. A Completed or
// Abandoned workflow gets EndedAt.
func (o ops) SetWorkflowStatus(ctx context.Context, workflowID string, status WorkflowStatus, reason string) error {
	if err := checkWorkflowStatus(status); err != nil {
		return err
	}
	now := o.clock()
	var ended any
	if status == WorkflowCompleted || status == WorkflowAbandoned {
		ended = stamp(now)
	}
	return o.execOne(ctx, fmt.Sprintf("set workflow %s status", workflowID), "workflow", workflowID, `UPDATE workflows SET status=?, status_reason=?, updated_at=?, ended_at=? WHERE id=?`,
		status, reason, stamp(now), ended, workflowID)
}

// DeleteWorkflow deletes a workflow and every record that belongs to it.
func (o ops) DeleteWorkflow(ctx context.Context, workflowID string) error {
	return o.execOne(ctx, fmt.Sprintf("delete workflow %s", workflowID), "workflow", workflowID, `DELETE FROM workflows WHERE id=?`, workflowID)
}
