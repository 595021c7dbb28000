package editor

// Job protocol (issue 19): a job is one coding-team agent on its own ai/…
// branch in its own worktree. These declarations join lspext.go's in the
// generated TypeScript (vscode-extension/src/lspext.gen.ts).

// Job commands (workspace/executeCommand with one object argument) and
// methods.
const (
	// CommandStartJob (StartJobParams) starts a job in the background and
	// returns its JobRef; progress arrives as JobEvent notifications.
	CommandStartJob = "autarch.startJob"
	// CommandResumeJob (JobRef) resumes a stopped, failed or waiting job
	// in the background, with the JobRef's guidance, and returns its JobRef.
	CommandResumeJob = "autarch.resumeJob"
	// CommandStopJob (JobRef) stops a running or waiting job; it can be
	// resumed later.
	CommandStopJob = "autarch.stopJob"
	// CommandAnswerEscalation (AnswerEscalationParams) answers a job's
	// pending request_human_review and resumes the job.
	CommandAnswerEscalation = "autarch.answerEscalation"
	// CommandApplyJob (ApplyJobParams) brings a job's commits into the
	// user's folder and returns ApplyWorkflowResult.
	CommandApplyJob = "autarch.applyJob"
	// MethodJobs (client → server request, params {}) returns []JobSummary,
	// most recently updated first.
	MethodJobs = "autarch/jobs"
	// MethodJobEvent (server → client notification) carries a JobEvent.
	MethodJobEvent = "autarch/jobEvent"
	// ApprovalEscalation is the Approval kind of a job's
	// request_human_review: Severity and Context say more.
	ApprovalEscalation = "escalation"
)

// StartJobParams start a job: Mode is "mechanic" (the default: patch
// limits, a smaller budget) or "genius"; Base is the ref the job starts
// from ("": the repository's default branch).
type StartJobParams struct {
	Task string `json:"task"`
	Mode string `json:"mode,omitempty"`
	Base string `json:"base,omitempty"`
}

// JobRef names a job.
type JobRef struct {
	JobID string `json:"jobId"`
	Name  string `json:"name,omitempty"`
	// Guidance (autarch.resumeJob) is the human's words the resumed job's
	// agent reads first; blank resumes from the last message alone.
	Guidance string `json:"guidance,omitempty"`
}

// AnswerEscalationParams answer a job's pending escalation.
type AnswerEscalationParams struct {
	JobID        string `json:"jobId"`
	EscalationID string `json:"escalationId"`
	Approved     bool   `json:"approved"`
	Feedback     string `json:"feedback,omitempty"`
}

// ApplyJobParams say how to apply a job's commits: "merge" fast-forwards
// the current branch, "edit" sends one workspace edit the user can undo.
type ApplyJobParams struct {
	JobID string `json:"jobId"`
	Mode  string `json:"mode"`
}

// JobEvent is something a job did (kinds: "status", "tool_call",
// "tool_result", "message", "escalation", "commit", "check", "usage").
type JobEvent struct {
	Kind   string `json:"kind"`
	JobID  string `json:"jobId"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Status is the job's status (kind "status") or a check's result.
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// ToolCallID is the model's id of the call (kinds "tool_call" and
	// "tool_result"): a result names the call it ends.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Usage is a "usage" event's model call.
	Usage *UsageView `json:"usage,omitempty"`
}

// JobSummary is one job as the side panel and autarch status show it.
type JobSummary struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Task         string `json:"task"`
	Mode         string `json:"mode"`
	Status       string `json:"status"`
	StatusReason string `json:"statusReason,omitempty"`
	Base         string `json:"base"`
	// Branch is the job's ai/… branch ("" until create_branch).
	Branch      string           `json:"branch"`
	Worktree    string           `json:"worktree"`
	Commits     []JobCommitView  `json:"commits"`
	Tests       *JobCheckView    `json:"tests"`
	Lint        *JobCheckView    `json:"lint"`
	Escalations []EscalationView `json:"escalations"`
	Analyses    int              `json:"analyses"`
	PlanSteps   int              `json:"planSteps"`
	Tokens      int64            `json:"tokens"`
	TokenBudget int64            `json:"tokenBudget"`
	Iterations  int              `json:"iterations"`
	Cost        float64          `json:"cost"`
	UpdatedAt   string           `json:"updatedAt"`
	// Activity is the job's latest tool calls (at most MaxJobActivity),
	// oldest first, for the side panel's activity feed.
	Activity []ActivityView `json:"activity"`
}

// MaxJobActivity is how many of a job's latest tool calls JobSummary
// carries.
const MaxJobActivity = 50

// JobCommitView is a commit a job made.
type JobCommitView struct {
	Hash    string `json:"hash"`
	Message string `json:"message"`
	Branch  string `json:"branch"`
	Files   int    `json:"files"`
}

// JobCheckView is the latest run_tests or run_lint result.
type JobCheckView struct {
	Status  string `json:"status"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Summary string `json:"summary,omitempty"`
}

// EscalationView is a request_human_review and its answer.
type EscalationView struct {
	ID       string `json:"id"`
	Reason   string `json:"reason"`
	Severity string `json:"severity,omitempty"`
	Context  string `json:"context,omitempty"`
	// Status is "Pending" or "Answered".
	Status   string `json:"status"`
	Approved bool   `json:"approved"`
	Feedback string `json:"feedback,omitempty"`
	// CreatedAt and ResolvedAt (RFC 3339; "" while pending) place the
	// escalation in the activity feed.
	CreatedAt  string `json:"createdAt,omitempty"`
	ResolvedAt string `json:"resolvedAt,omitempty"`
}
