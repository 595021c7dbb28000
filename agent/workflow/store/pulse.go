package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/tools/verify"
)

// PulseStatus is a pulse's lifecycle state.
type PulseStatus string

// Pulse states: Proposed → Running → Succeeded | Failed | Stopped.
const (
	PulseProposed  PulseStatus = "Proposed"
	PulseRunning   PulseStatus = "Running"
	PulseSucceeded PulseStatus = "Succeeded"
	PulseFailed    PulseStatus = "Failed"
	PulseStopped   PulseStatus = "Stopped"
)

// DiffStats count a pulse's changes.
type DiffStats struct {
	Files     int
	Additions int
	Deletions int
}

// UnresolvedIssue is one entry of complete_pulse's escape hatch.
type UnresolvedIssue struct {
	Issue  string `json:"issue"`
	Reason string `json:"reason"`
}

// Pulse is one unit of work (pulsing-phase.md's Pulse, with the plan's
// fields).
type Pulse struct {
	ID         string
	WorkflowID string
	PlanID     string // "" for the quick path's single pulse
	// PlannedID is the plan's id for the pulse ("pulse-1"); also the git
	// pulse id.
	PlannedID       string
	Seq             int // order within the plan
	Title           string
	Description     string
	ExpectedChanges []string
	DependsOn       []string // PlannedIDs
	EstimatedSize   string   // small, medium, large or ""
	Status          PulseStatus
	// InitiatingMessageID is the message that started the pulse (its
	// first run's kickoff), 0 before it started.
	InitiatingMessageID int64
	// Summary is the Conventional Commit summary (the commit message).
	Summary          string
	CheckpointCommit string
	// DiffArtifactID names the artifact holding the pulse's diff against
	// the workflow head it started from ("" before its checkpoint).
	DiffArtifactID       string
	PulseBranch          string
	WorktreePath         string
	Diff                 DiffStats
	IsRecoveryCheckpoint bool
	UnresolvedIssues     []UnresolvedIssue
	FailureReason        string
	RejectionCount       int
	ExtensionCount       int
	// Failures are the unresolved tool failures of the pulse's runs so
	// far: completion validation judges a resumed pulse on them too.
	Failures []PulseFailure
	// Gates is the last quality-gate run (nil before any).
	Gates *verify.GateRun
	// RevertedBy names the revert that made the pulse Proposed again
	// ("" for a pulse never reverted); Guidance is the user's guidance
	// for its next run (autarch redo), "" for none.
	RevertedBy string
	Guidance   string
	CreatedAt  time.Time
	StartedAt  time.Time
	EndedAt    time.Time
}

// PulseFailure is a failed tool call not yet resolved by a later
// successful call on the same thing (Key).
type PulseFailure struct {
	Tool    string `json:"tool"`
	Summary string `json:"summary"`
	Key     string `json:"key"`
}

// HasUnresolvedIssues reports whether the pulse completed through the
// escape hatch (which halts orchestration).
func (p *Pulse) HasUnresolvedIssues() bool { return len(p.UnresolvedIssues) > 0 }

// Plan is submit_plan's plan with its pulses.
type Plan struct {
	ID              string
	WorkflowID      string
	ApproachSummary string
	Status          CardStatus
	Feedback        string
	Pulses          []Pulse
	CreatedAt       time.Time
	ResolvedAt      time.Time
}

func checkSize(s string) error {
	switch s {
	case "", "small", "medium", "large":
		return nil
	}
	return fmt.Errorf("invalid estimatedSize %q: use small, medium or large", s)
}

// AddPlan stores a submitted plan as Pending with its pulses as Proposed,
// in one transaction. Pulse ids are filled; Seq follows the slice order.
func (o ops) AddPlan(ctx context.Context, p *Plan) error {
	if strings.TrimSpace(p.ApproachSummary) == "" {
		return fmt.Errorf("plan approachSummary is required")
	}
	if len(p.Pulses) == 0 {
		return fmt.Errorf("plan has no pulses")
	}
	seen := map[string]bool{}
	for i := range p.Pulses {
		id := p.Pulses[i].PlannedID
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("pulse %d of the plan has no id", i+1)
		}
		if seen[id] {
			return fmt.Errorf("pulse id %q is used twice; ids must be unique", id)
		}
		seen[id] = true
	}
	ensureID(&p.ID, "plan")
	p.Status, p.Feedback, p.CreatedAt, p.ResolvedAt = CardPending, "", o.clock(), time.Time{}
	return o.atomic(ctx, func(o ops) error {
		if _, err := o.q.ExecContext(ctx, `INSERT INTO plans (id, workflow_id, approach_summary, status, created_at) VALUES (?,?,?,?,?)`,
			p.ID, p.WorkflowID, p.ApproachSummary, p.Status, stamp(p.CreatedAt)); err != nil {
			return fmt.Errorf("add plan: %w", err)
		}
		for i := range p.Pulses {
			pu := &p.Pulses[i]
			pu.WorkflowID, pu.PlanID, pu.Seq = p.WorkflowID, p.ID, i+1
			if err := o.AddPulse(ctx, pu); err != nil {
				return err
			}
		}
		return nil
	})
}

const planCols = `id, workflow_id, approach_summary, status, feedback, created_at, resolved_at`

func (o ops) scanPlan(ctx context.Context, row *sql.Row, what, id string) (Plan, error) {
	var p Plan
	if err := row.Scan(&p.ID, &p.WorkflowID, &p.ApproachSummary, &p.Status, &p.Feedback, stampTo(&p.CreatedAt), stampTo(&p.ResolvedAt)); err != nil {
		return Plan{}, notFound(err, what, id)
	}
	pulses, err := o.PlanPulses(ctx, p.ID)
	if err != nil {
		return Plan{}, err
	}
	p.Pulses = pulses
	return p, nil
}

// Plan reads a plan with its pulses.
func (o ops) Plan(ctx context.Context, id string) (Plan, error) {
	return o.scanPlan(ctx, o.q.QueryRowContext(ctx, `SELECT `+planCols+` FROM plans WHERE id=?`, id), "plan", id)
}

// LatestPlan is the workflow's newest plan (any status) with its pulses.
func (o ops) LatestPlan(ctx context.Context, workflowID string) (Plan, error) {
	return o.scanPlan(ctx, o.q.QueryRowContext(ctx, `SELECT `+planCols+` FROM plans WHERE workflow_id=?
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, workflowID), "plan of workflow", workflowID)
}

// ApprovedPlan is the workflow's latest approved plan with its pulses.
func (o ops) ApprovedPlan(ctx context.Context, workflowID string) (Plan, error) {
	return o.scanPlan(ctx, o.q.QueryRowContext(ctx, `SELECT `+planCols+` FROM plans WHERE workflow_id=? AND status='Approved'
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, workflowID), "approved plan of workflow", workflowID)
}

// AddPulse stores one Proposed pulse (the quick path's, or a plan's).
func (o ops) AddPulse(ctx context.Context, p *Pulse) error {
	if strings.TrimSpace(p.PlannedID) == "" {
		return fmt.Errorf("pulse id is required")
	}
	if err := checkSize(p.EstimatedSize); err != nil {
		return fmt.Errorf("pulse %s: %w", p.PlannedID, err)
	}
	ensureID(&p.ID, "pulse")
	if p.Seq == 0 {
		p.Seq = 1
	}
	p.Status, p.CreatedAt = PulseProposed, o.clock()
	exp, err1 := toJSON(p.ExpectedChanges)
	dep, err2 := toJSON(p.DependsOn)
	un, err3 := toJSON(p.UnresolvedIssues)
	if err := firstErr(err1, err2, err3); err != nil {
		return fmt.Errorf("pulse %s: %w", p.PlannedID, err)
	}
	return o.exec(ctx, fmt.Sprintf("add pulse %s", p.PlannedID), `INSERT INTO pulses (id, workflow_id, plan_id, planned_id, seq, title, description, expected_changes,
		depends_on, estimated_size, status, unresolved_issues, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		p.ID, p.WorkflowID, nullString(p.PlanID), p.PlannedID, p.Seq, p.Title, p.Description, exp, dep, p.EstimatedSize,
		p.Status, un, stamp(p.CreatedAt))
}

const pulseCols = `id, workflow_id, plan_id, planned_id, seq, title, description, expected_changes, depends_on, estimated_size, status,
	initiating_message_id, summary, checkpoint_commit, pulse_branch, worktree_path, diff_files, diff_additions, diff_deletions,
	is_recovery_checkpoint, unresolved_issues, failure_reason, rejection_count, extension_count, failures, gate_run, diff_artifact_id,
	created_at, started_at, ended_at, reverted_by, guidance`

func scanPulse(row interface{ Scan(...any) error }) (Pulse, error) {
	var p Pulse
	var plan sql.NullString
	var exp, dep, un, fails, gates string
	if err := row.Scan(&p.ID, &p.WorkflowID, &plan, &p.PlannedID, &p.Seq, &p.Title, &p.Description, &exp, &dep, &p.EstimatedSize,
		&p.Status, &p.InitiatingMessageID, &p.Summary, &p.CheckpointCommit, &p.PulseBranch, &p.WorktreePath, &p.Diff.Files,
		&p.Diff.Additions, &p.Diff.Deletions, &p.IsRecoveryCheckpoint, &un, &p.FailureReason, &p.RejectionCount,
		&p.ExtensionCount, &fails, &gates, &p.DiffArtifactID, stampTo(&p.CreatedAt), stampTo(&p.StartedAt), stampTo(&p.EndedAt), &p.RevertedBy, &p.Guidance); err != nil {
		return Pulse{}, err
	}
	p.PlanID = plan.String
	return p, firstErr(fromJSON(exp, &p.ExpectedChanges), fromJSON(dep, &p.DependsOn), fromJSON(un, &p.UnresolvedIssues),
		fromJSON(fails, &p.Failures), fromJSON(gates, &p.Gates))
}

// Pulse reads a pulse.
func (o ops) Pulse(ctx context.Context, id string) (Pulse, error) {
	return queryOne(ctx, o, scanPulse, "pulse", id, `SELECT `+pulseCols+` FROM pulses WHERE id=?`, id)
}

// PlanPulses lists a plan's pulses in plan order.
func (o ops) PlanPulses(ctx context.Context, planID string) ([]Pulse, error) {
	return queryAll(ctx, o, scanPulse, "pulses", `SELECT `+pulseCols+` FROM pulses WHERE plan_id=? ORDER BY seq, rowid`, planID)
}

// WorkflowPulses lists every pulse of a workflow, oldest first.
func (o ops) WorkflowPulses(ctx context.Context, workflowID string) ([]Pulse, error) {
	return queryAll(ctx, o, scanPulse, "pulses", `SELECT `+pulseCols+` FROM pulses WHERE workflow_id=? ORDER BY created_at, seq, rowid`, workflowID)
}

// PulseStart is what StartPulse records.
type PulseStart struct {
	PulseBranch  string
	WorktreePath string
}

// StartPulse moves a Proposed pulse — or a Failed or Stopped one being
// resumed — to Running, clearing the previous end's failure reason.
func (o ops) StartPulse(ctx context.Context, id string, start PulseStart) error {
	return o.atomic(ctx, func(o ops) error {
		p, err := o.Pulse(ctx, id)
		if err != nil {
			return err
		}
		switch p.Status {
		case PulseProposed, PulseFailed, PulseStopped:
		default:
			return fmt.Errorf("start pulse %s: it is %s; only Proposed, Failed or Stopped pulses start", p.PlannedID, p.Status)
		}
		return o.exec(ctx, fmt.Sprintf("start pulse %s", p.PlannedID), `UPDATE pulses SET status='Running', pulse_branch=?, worktree_path=?, failure_reason='',
			started_at=?, ended_at=NULL WHERE id=?`, start.PulseBranch, start.WorktreePath, stamp(o.clock()), id)
	})
}

// PulseEnd is how a Running pulse ended.
type PulseEnd struct {
	Status               PulseStatus // Succeeded, Failed or Stopped
	Summary              string
	CheckpointCommit     string
	IsRecoveryCheckpoint bool
	Diff                 DiffStats
	UnresolvedIssues     []UnresolvedIssue
	FailureReason        string
	// DiffPatch is the pulse's unified diff, stored as its diff artifact
	// in the same transaction ("" for none: an empty pulse).
	DiffPatch string
}

// FinishPulse ends a Running pulse.
func (o ops) FinishPulse(ctx context.Context, id string, end PulseEnd) error {
	switch end.Status {
	case PulseSucceeded, PulseFailed, PulseStopped:
	default:
		return fmt.Errorf("finish pulse %s: invalid end status %q: use Succeeded, Failed or Stopped", id, end.Status)
	}
	un, err := toJSON(end.UnresolvedIssues)
	if err != nil {
		return fmt.Errorf("finish pulse %s: %w", id, err)
	}
	return o.atomic(ctx, func(o ops) error {
		p, err := o.Pulse(ctx, id)
		if err != nil {
			return err
		}
		if p.Status != PulseRunning {
			return fmt.Errorf("finish pulse %s: it is %s, not Running", p.PlannedID, p.Status)
		}
		artifact := p.DiffArtifactID
		if end.DiffPatch != "" {
			a := Artifact{WorkflowID: p.WorkflowID, PulseID: p.ID, Kind: ArtifactDiff, Content: end.DiffPatch}
			if err := o.addArtifact(ctx, &a); err != nil {
				return fmt.Errorf("finish pulse %s: %w", p.PlannedID, err)
			}
			artifact = a.ID
		}
		return o.exec(ctx, fmt.Sprintf("finish pulse %s", p.PlannedID), `UPDATE pulses SET status=?, summary=?, checkpoint_commit=?, is_recovery_checkpoint=?,
			diff_files=?, diff_additions=?, diff_deletions=?, unresolved_issues=?, failure_reason=?, diff_artifact_id=?, ended_at=? WHERE id=?`,
			end.Status, end.Summary, end.CheckpointCommit, end.IsRecoveryCheckpoint, end.Diff.Files, end.Diff.Additions,
			end.Diff.Deletions, un, end.FailureReason, artifact, stamp(o.clock()), id)
	})
}

// RecordRecovery records the recovery checkpoint made for a Failed or
// Stopped pulse (after RecoverInterrupted, for instance).
func (o ops) RecordRecovery(ctx context.Context, id, commit string, diff DiffStats) error {
	res, err := o.q.ExecContext(ctx, `UPDATE pulses SET checkpoint_commit=?, is_recovery_checkpoint=1, diff_files=?, diff_additions=?,
		diff_deletions=? WHERE id=? AND status IN ('Failed', 'Stopped')`, commit, diff.Files, diff.Additions, diff.Deletions, id)
	if err != nil {
		return fmt.Errorf("record recovery of pulse %s: %w", id, err)
	}
	if err := expectOne(res, "failed or stopped pulse", id); err != nil {
		return err
	}
	return nil
}

// SetInitiatingMessage records the pulse's kickoff message: the first
// one; a later run of the pulse (resumed) keeps it.
func (o ops) SetInitiatingMessage(ctx context.Context, pulseID string, messageID int64) error {
	if messageID <= 0 {
		return fmt.Errorf("set initiating message of pulse %s: message id %d is not a stored message", pulseID, messageID)
	}
	return o.atomic(ctx, func(o ops) error {
		if _, err := o.Pulse(ctx, pulseID); err != nil {
			return err
		}
		if _, err := o.q.ExecContext(ctx, `UPDATE pulses SET initiating_message_id=? WHERE id=? AND initiating_message_id=0`, messageID, pulseID); err != nil {
			return fmt.Errorf("set initiating message of pulse %s: %w", pulseID, err)
		}
		return nil
	})
}

// SetPulseFailures records a pulse's unresolved tool failures.
func (o ops) SetPulseFailures(ctx context.Context, pulseID string, fs []PulseFailure) error {
	return o.setJSON(ctx, pulseID, "failures", fs)
}

// SetPulseGates records a pulse's last quality-gate run.
func (o ops) SetPulseGates(ctx context.Context, pulseID string, run verify.GateRun) error {
	return o.setJSON(ctx, pulseID, "gate_run", run)
}

func (o ops) setJSON(ctx context.Context, pulseID, col string, v any) error {
	data, err := toJSON(v)
	if err != nil {
		return fmt.Errorf("pulse %s %s: %w", pulseID, col, err)
	}
	return o.execOne(ctx, fmt.Sprintf("pulse %s %s", pulseID, col), "pulse", pulseID, `UPDATE pulses SET `+col+`=? WHERE id=?`, data, pulseID)
}

// AddRejection counts one rejected completion of a pulse and returns the
// new count.
func (o ops) AddRejection(ctx context.Context, pulseID string) (int, error) {
	return o.increment(ctx, pulseID, "rejection_count")
}

// AddExtension counts one approved extension of a pulse and returns the
// new count.
func (o ops) AddExtension(ctx context.Context, pulseID string) (int, error) {
	return o.increment(ctx, pulseID, "extension_count")
}

func (o ops) increment(ctx context.Context, pulseID, col string) (int, error) {
	var n int
	err := o.q.QueryRowContext(ctx, `UPDATE pulses SET `+col+` = `+col+` + 1 WHERE id=? RETURNING `+col, pulseID).Scan(&n)
	if err != nil {
		return 0, notFound(err, "pulse", pulseID)
	}
	return n, nil
}

// InterruptedReason is the failure reason RecoverInterrupted records.
const InterruptedReason = "interrupted: autarch stopped while this was running"

// Interrupted is what RecoverInterrupted found running.
type Interrupted struct {
	// Pulses were Running and are now Stopped; the caller makes their
	// recovery checkpoints (git) and records them with RecordRecovery.
	Pulses []Pulse
	// Preflights were Running and are now Failed.
	Preflights []PreflightSetup
}

// RecoverInterrupted runs at startup: pulses left Running by a process that
// died become Stopped, and preflights left Running become Failed, with
// InterruptedReason, in one transaction. It returns what it changed.
func (o ops) RecoverInterrupted(ctx context.Context) (Interrupted, error) {
	var out Interrupted
	err := o.atomic(ctx, func(o ops) error {
		now := stamp(o.clock())
		pulses, err := queryAll(ctx, o, scanPulse, "running pulses", `UPDATE pulses SET status='Stopped', failure_reason=?, ended_at=?
			WHERE status='Running' RETURNING `+pulseCols, InterruptedReason, now)
		if err != nil {
			return err
		}
		pre, err := queryAll(ctx, o, scanPreflight, "running preflights", `UPDATE preflight_setups SET status='Failed', error_message=?,
			completed_at=? WHERE status='Running' RETURNING `+preflightCols, InterruptedReason, now)
		if err != nil {
			return err
		}
		out = Interrupted{Pulses: pulses, Preflights: pre}
		return nil
	})
	return out, err
}
