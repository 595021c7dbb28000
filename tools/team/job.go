// Package team is the coding-team tool catalog (../shared/spec/coding-team-tools.md):
// the tools a job agent uses to work on its own ai/… branch in its own
// worktree, patch, test, lint, commit and escalate to a human.
package team

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/tools/verify"
)

// Mode is a job's operating mode.
type Mode string

// Job modes: mechanic limits patches (MechanicMaxFiles, MechanicMaxLines)
// and its budget; genius lifts them.
const (
	Mechanic Mode = "mechanic"
	Genius   Mode = "genius"
)

// Mechanic mode limits per apply_patch call.
const (
	MechanicMaxFiles = 5
	MechanicMaxLines = 200
)

// Analysis is what record_analysis stores.
type Analysis struct {
	Findings   string   `json:"findings"`
	Files      []string `json:"files,omitempty"`
	Complexity string   `json:"complexity,omitempty"`
	Risks      []string `json:"risks,omitempty"`
}

// PlanStep is one step of create_plan.
type PlanStep struct {
	Description string   `json:"description"`
	Tool        string   `json:"tool"`
	Files       []string `json:"files,omitempty"`
}

// Plan is what create_plan stores.
type Plan struct {
	Steps           []PlanStep `json:"steps"`
	EstimatedSteps  int        `json:"estimatedSteps,omitempty"`
	EstimatedTokens int        `json:"estimatedTokens,omitempty"`
}

// Escalation is a request_human_review.
type Escalation struct {
	Reason   string          `json:"reason"`
	Severity string          `json:"severity,omitempty"`
	Context  json.RawMessage `json:"context,omitempty"`
}

// Commit is a commit commit_changes made on the job's branch.
type Commit struct {
	Hash    string `json:"hash"`
	Message string `json:"message"`
	Branch  string `json:"branch"`
	Files   int    `json:"files"`
	// Checks are the reports of the tests and linters the commit rests on
	// (its completion receipt's checks).
	Checks []verify.Report `json:"-"`
}

// Job is the running job the team tools act for. agent/job implements it
// over the workflow store; the tools' session root is the job's own linked
// worktree (created by the job runner, detached at the base until
// create_branch puts it on ai/<ID()[:8]>/<name>).
type Job interface {
	// ID is the job's id; its first 8 characters prefix branch names.
	ID() string
	Mode() Mode
	// BaseCommit is the commit the job's work started from: the
	// .gitattributes files the user committed there are the ones whose
	// conversions a commit may apply ("HEAD": the tree's committed ones).
	BaseCommit() string
	// BranchCreated records the branch create_branch made or switched to.
	BranchCreated(ctx context.Context, branch, base string) error
	// RecordAnalysis stores an analysis and returns its id.
	RecordAnalysis(ctx context.Context, a Analysis) (string, error)
	// SavePlan stores a plan and returns its id.
	SavePlan(ctx context.Context, p Plan) (string, error)
	// Escalate records the escalation, asks the human (editor approval or
	// terminal) and waits for the answer; it returns the escalation id and
	// the human's answer (approved, and their feedback).
	Escalate(ctx context.Context, e Escalation) (id string, approved bool, feedback string, err error)
	// Committed records a commit made on the job's branch.
	Committed(ctx context.Context, c Commit) error
}
