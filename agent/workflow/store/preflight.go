package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// PreflightStatus is where preflight stands.
type PreflightStatus string

// Preflight statuses.
const (
	PreflightRunning   PreflightStatus = "Running"
	PreflightCompleted PreflightStatus = "Completed"
	PreflightFailed    PreflightStatus = "Failed"
)

// PreflightSetup is one preflight run of a workflow, with
// complete_preflight's fields once it completes.
type PreflightSetup struct {
	ID                string
	WorkflowID        string
	ChannelID         string
	Status            PreflightStatus
	ProgressMessage   string
	ErrorMessage      string
	Summary           string
	SetupCommands     []string
	BuildSuccess      bool
	BaselinesRecorded int
	CreatedAt         time.Time
	CompletedAt       time.Time
}

// PreflightResult is complete_preflight's payload.
type PreflightResult struct {
	Summary           string
	SetupCommands     []string
	BuildSuccess      bool
	BaselinesRecorded int
}

const preflightCols = `id, workflow_id, channel_id, status, progress_message, error_message, summary, setup_commands, build_success,
	baselines_recorded, created_at, completed_at`

func scanPreflight(row interface{ Scan(...any) error }) (PreflightSetup, error) {
	var p PreflightSetup
	var cmds string
	if err := row.Scan(&p.ID, &p.WorkflowID, &p.ChannelID, &p.Status, &p.ProgressMessage, &p.ErrorMessage, &p.Summary, &cmds,
		&p.BuildSuccess, &p.BaselinesRecorded, stampTo(&p.CreatedAt), stampTo(&p.CompletedAt)); err != nil {
		return PreflightSetup{}, err
	}
	return p, fromJSON(cmds, &p.SetupCommands)
}

// StartPreflight stores a Running preflight for a workflow.
func (o ops) StartPreflight(ctx context.Context, p *PreflightSetup) error {
	ensureID(&p.ID, "preflight")
	p.Status, p.CreatedAt, p.CompletedAt = PreflightRunning, o.clock(), time.Time{}
	cmds, err := toJSON(p.SetupCommands)
	if err != nil {
		return fmt.Errorf("start preflight: %w", err)
	}
	return o.exec(ctx, "start preflight", `INSERT INTO preflight_setups (id, workflow_id, channel_id, status, progress_message, setup_commands,
		created_at) VALUES (?,?,?,?,?,?,?)`, p.ID, p.WorkflowID, p.ChannelID, p.Status, p.ProgressMessage, cmds, stamp(p.CreatedAt))
}

// SetPreflightProgress updates a running preflight's progress message.
func (o ops) SetPreflightProgress(ctx context.Context, id, message string) error {
	return o.execOne(ctx, "preflight progress", "running preflight", id, `UPDATE preflight_setups SET progress_message=? WHERE id=? AND status='Running'`, message, id)
}

// CompletePreflight records complete_preflight's result.
func (o ops) CompletePreflight(ctx context.Context, id string, r PreflightResult) error {
	if strings.TrimSpace(r.Summary) == "" {
		return fmt.Errorf("complete preflight: summary is required")
	}
	if r.BaselinesRecorded < 0 {
		return fmt.Errorf("complete preflight: baselinesRecorded must not be negative")
	}
	cmds, err := toJSON(r.SetupCommands)
	if err != nil {
		return fmt.Errorf("complete preflight: %w", err)
	}
	return o.execOne(ctx, "complete preflight", "running preflight", id, `UPDATE preflight_setups SET status='Completed', summary=?, setup_commands=?, build_success=?,
		baselines_recorded=?, completed_at=? WHERE id=? AND status='Running'`,
		r.Summary, cmds, r.BuildSuccess, r.BaselinesRecorded, stamp(o.clock()), id)
}

// FailPreflight marks a running preflight Failed with a message.
func (o ops) FailPreflight(ctx context.Context, id, message string) error {
	return o.execOne(ctx, "fail preflight", "running preflight", id, `UPDATE preflight_setups SET status='Failed', error_message=?, completed_at=? WHERE id=? AND status='Running'`,
		message, stamp(o.clock()), id)
}

// LatestPreflight is the workflow's newest preflight.
func (o ops) LatestPreflight(ctx context.Context, workflowID string) (PreflightSetup, error) {
	return queryOne(ctx, o, scanPreflight, "preflight of workflow", workflowID, `SELECT `+preflightCols+` FROM preflight_setups WHERE workflow_id=?
		ORDER BY created_at DESC, rowid DESC LIMIT 1`, workflowID)
}

// Baseline is a known build, lint or test issue recorded by preflight
// (record_baseline).
type Baseline struct {
	ID          string
	WorkflowID  string
	IssueType   string // Error or Warning
	Source      string // Build, Lint or Test
	Pattern     string
	FilePath    string
	Description string
	RecordedAt  time.Time
}

// CheckBaseline validates a baseline with record_baseline's error strings.
func CheckBaseline(b Baseline) error {
	if b.IssueType != "Error" && b.IssueType != "Warning" {
		return fmt.Errorf("Invalid issueType '%s'. Must be 'Error' or 'Warning'.", b.IssueType)
	}
	if b.Source != "Build" && b.Source != "Lint" && b.Source != "Test" {
		return fmt.Errorf("Invalid source '%s'. Must be 'Build', 'Lint', or 'Test'.", b.Source)
	}
	if strings.TrimSpace(b.Pattern) == "" {
		return fmt.Errorf("pattern is required")
	}
	return nil
}

// AddBaseline stores a baseline.
func (o ops) AddBaseline(ctx context.Context, b *Baseline) error {
	if err := CheckBaseline(*b); err != nil {
		return err
	}
	ensureID(&b.ID, "baseline")
	b.RecordedAt = o.clock()
	return o.exec(ctx, "add baseline", `INSERT INTO baselines (id, workflow_id, issue_type, source, pattern, file_path, description, recorded_at)
		VALUES (?,?,?,?,?,?,?,?)`, b.ID, b.WorkflowID, b.IssueType, b.Source, b.Pattern, b.FilePath, b.Description, stamp(b.RecordedAt))
}

// Baselines lists a workflow's baselines in recording order.
func (o ops) Baselines(ctx context.Context, workflowID string) ([]Baseline, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (Baseline, error) {
		var b Baseline
		err := row.Scan(&b.ID, &b.WorkflowID, &b.IssueType, &b.Source, &b.Pattern, &b.FilePath, &b.Description, stampTo(&b.RecordedAt))
		return b, err
	}, "baselines", `SELECT id, workflow_id, issue_type, source, pattern, file_path, description, recorded_at FROM baselines
		WHERE workflow_id=? ORDER BY recorded_at, rowid`, workflowID)
}
