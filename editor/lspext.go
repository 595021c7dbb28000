package editor

// This file declares the protocol extensions between the server and its
// clients: executeCommand names, custom autarch/* methods and their payloads.
// It is the single declaration; the extension's TypeScript types
// (vscode-extension/src/lspext.gen.ts) are generated from it and a test
// fails when they drift.

// Commands accepted by workspace/executeCommand (advertised in the
// executeCommandProvider capability).
const (
	// CommandServerStatus returns a ServerStatus.
	CommandServerStatus = "autarch.serverStatus"
	// CommandShowMessage shows its one string argument back to the client
	// as window/showMessage (a round-trip check for any client).
	CommandShowMessage = "autarch.showMessage"
)

// Custom methods.
const (
	// MethodStatus (client → server request, params {}) returns ServerStatus.
	MethodStatus = "autarch/status"
	// MethodStatusChanged (server → client notification) carries ServerStatus
	// whenever it changes (settings, workspace folders).
	MethodStatusChanged = "autarch/statusChanged"
	// MethodSetAPIKey (client → server request, SetAPIKeyParams) gives the
	// server the model's API key and returns ServerStatus. The server never
	// logs its params nor sends the key back; clients should keep it out of
	// their own protocol traces too. The alternative is OPENAI_API_KEY in
	// the server's environment when spawning it.
	MethodSetAPIKey = "autarch/setApiKey"
	// MethodAskQuestions (server → client request, AskQuestionsParams)
	// returns AskQuestionsResult; clients that implement it declare
	// capabilities.experimental.autarch.questions = true in initialize.
	MethodAskQuestions = "autarch/askQuestions"
)

// AskQuestionsParams are the params of autarch/askQuestions.
type AskQuestionsParams struct {
	Questions []Question `json:"questions"`
	// WorkflowID is the workflow that asks ("" outside workflows).
	WorkflowID string `json:"workflowId,omitempty"`
	// Title says who asks and why (e.g. "Reply to the scoping agent").
	Title string `json:"title,omitempty"`
}

// AskQuestionsResult holds one Answer per question, in order.
type AskQuestionsResult struct {
	Answers []Answer `json:"answers"`
}

// ServerStatus describes the running server for the side panel and the
// "Show Server Status" command.
type ServerStatus struct {
	// Version is the server's version string.
	Version string `json:"version"`
	// PID is the server's process id.
	PID int `json:"pid"`
	// Workspace lists the workspace folders' paths.
	Workspace []string `json:"workspace"`
	// Model describes the configured model endpoint.
	Model ModelStatus `json:"model"`
	// LogFile is the path of the server's log file ("" if none).
	LogFile string `json:"logFile"`
	// StateDir is where the server keeps state for the first workspace.
	StateDir string `json:"stateDir"`
	// Message is a one-line human summary, e.g. "Autarch dev: model gpt-4o at https://api.openai.com/v1".
	Message string `json:"message"`
}

// ModelStatus says whether a model endpoint is configured. The API key itself
// is never sent back to the client.
type ModelStatus struct {
	// Configured is true when a model name and an API key or a base URL are set.
	Configured bool `json:"configured"`
	// BaseURL is the OpenAI-compatible endpoint ("" means OpenAI's default).
	BaseURL string `json:"baseUrl"`
	// Name is the model name.
	Name string `json:"name"`
	// HasAPIKey tells whether a key is set (from the editor or the environment).
	HasAPIKey bool `json:"hasApiKey"`
	// Source names where the settings came from: "initializationOptions",
	// "didChangeConfiguration", "environment" or "none".
	Source string `json:"source"`
}

// Settings are the client-side settings, sent as initializationOptions and in
// workspace/didChangeConfiguration as {"settings": {"autarch": Settings}}.
// Empty fields fall back to the environment: OPENAI_BASE_URL, AUTARCH_MODEL.
// The API key is not a setting (settings show in protocol traces): it comes
// from autarch/setApiKey or OPENAI_API_KEY.
type Settings struct {
	Model ModelSettings `json:"model"`
	// APIKey is ignored (and logged as a warning): use autarch/setApiKey.
	APIKey   string `json:"apiKey,omitempty"`
	LogLevel string `json:"logLevel,omitempty"`
	// Fleet is the fleet of worker machines the editor's "Run in
	// Background" submits to (none when NatsURL is empty).
	Fleet FleetSettings `json:"fleet,omitempty"`
}

// FleetSettings configure the fleet (autarch.fleet.*).
type FleetSettings struct {
	// NatsURL is the fleet's NATS server (nats://host:4222, JetStream on).
	NatsURL string `json:"natsUrl,omitempty"`
	// Creds is a NATS credentials file (.creds) for NatsURL.
	Creds string `json:"creds,omitempty"`
	// Repo is the git URL the workers clone and push the runs' branches
	// to ("": the folder's origin remote, else the folder itself).
	Repo string `json:"repo,omitempty"`
}

// SetAPIKeyParams carry the model's API key ("" falls back to OPENAI_API_KEY).
type SetAPIKeyParams struct {
	APIKey string `json:"apiKey"`
}

// ModelSettings configures the model endpoint.
type ModelSettings struct {
	BaseURL string `json:"baseUrl,omitempty"`
	Name    string `json:"name,omitempty"`
}

// Workflow commands (workspace/executeCommand with one object argument).
const (
	// CommandNewWorkflow (NewWorkflowParams) starts a workflow in the
	// background and returns its WorkflowRef; progress arrives as
	// WorkflowEvent notifications.
	CommandNewWorkflow = "autarch.newWorkflow"
	// CommandDiscuss (DiscussParams) sends a message to the discussion agent;
	// its answer arrives as a WorkflowEvent of kind "message", stage "discussion".
	CommandDiscuss = "autarch.discuss"
	// CommandStopWorkflow (WorkflowRef) stops a workflow.
	CommandStopWorkflow = "autarch.stopWorkflow"
	// CommandResumeWorkflow (WorkflowRef) resumes a stopped, halted or waiting workflow.
	CommandResumeWorkflow = "autarch.resumeWorkflow"
	// CommandAnswer (AnswerParams) answers a pending question, or decides a
	// pending card, of a waiting workflow (clients without
	// autarch/askQuestions, the side panel after a restart) and resumes it.
	CommandAnswer = "autarch.answer"
	// CommandReviewBranch (ReviewBranchParams) reviews the current branch
	// against a base; comments arrive as diagnostics and WorkflowEvents, and
	// the result is a ReviewView.
	CommandReviewBranch = "autarch.reviewBranch"
	// CommandSearch (SearchParams) returns SearchHit[] from the code index.
	CommandSearch = "autarch.search"
	// CommandReindex ({}) rebuilds the code index with $/progress.
	CommandReindex = "autarch.reindex"
	// CommandApplyWorkflow (ApplyWorkflowParams) brings a workflow's work
	// into the user's folder and returns ApplyWorkflowResult.
	CommandApplyWorkflow = "autarch.applyWorkflow"
	// CommandPulseDiff (PulseDiffParams) returns the PulseDiff of a workflow
	// or one of its pulses.
	CommandPulseDiff = "autarch.pulseDiff"
	// CommandOpenFile (OpenFileParams) opens a file of the workspace at a
	// line with window/showDocument and returns OpenFileResult (clients
	// without showDocument get Shown false and open it themselves).
	CommandOpenFile = "autarch.openFile"
)

// OpenFileParams name a file of the workspace (relative to the first
// folder, or absolute) and a 1-based line (0: the top).
type OpenFileParams struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// OpenFileResult says whether the client showed the file.
type OpenFileResult struct {
	Shown bool `json:"shown"`
}

// MethodRuns (client → server request, {}) returns RunSummary[]: every run
// of the project — workflows, jobs and swarms — in one list, most recently
// updated first.
const MethodRuns = "autarch/runs"

// RunSummary is one run of any kind in the one list of runs: Kind is
// "workflow", "job" or "swarm"; the kind's own list (autarch/workflows,
// autarch/jobs, autarch/swarms) has its detail.
type RunSummary struct {
	Kind         string `json:"kind"`
	ID           string `json:"id"`
	Name         string `json:"name"`
	Task         string `json:"task"`
	Status       string `json:"status"`
	StatusReason string `json:"statusReason,omitempty"`
	Branch       string `json:"branch"`
	UpdatedAt    string `json:"updatedAt"`
	// Fleet is set on a run of the fleet (autarch/fleetSubmit): Worker is
	// the worker running it; Prompt the question it waits on, answered
	// with autarch/fleetAnswer, after the lines that led to it (Context:
	// a card, a diff).
	Fleet   bool     `json:"fleet,omitempty"`
	Worker  string   `json:"worker,omitempty"`
	Prompt  string   `json:"prompt,omitempty"`
	Context []string `json:"context,omitempty"`
}

// Fleet methods: runs of the fleet's workers (autarch.fleet.natsUrl).
const (
	// MethodFleetSubmit (client → server request, FleetSubmitParams)
	// queues a run for the fleet's workers and returns its FleetRunRef;
	// it is listed by autarch/runs with its worker.
	MethodFleetSubmit = "autarch/fleetSubmit"
	// MethodFleetAnswer (client → server request, FleetAnswerParams)
	// answers the question a fleet run waits on (RunSummary.Prompt).
	MethodFleetAnswer = "autarch/fleetAnswer"
	// MethodFleetApply (client → server request, FleetApplyParams) fetches
	// a completed fleet run's branch from its remote and brings it into
	// the user's folder as a workflow's Apply does; returns
	// ApplyWorkflowResult.
	MethodFleetApply = "autarch/fleetApply"
	// MethodFleetEvent (server → client notification) carries a
	// FleetEvent of a run this editor follows.
	MethodFleetEvent = "autarch/fleetEvent"
)

// FleetSubmitParams ask for a fleet run, as autarch submit does.
type FleetSubmitParams struct {
	// Kind is "workflow" (default) or "job".
	Kind string `json:"kind,omitempty"`
	Task string `json:"task"`
	// Name is the workflow's name ("": made from the task).
	Name string `json:"name,omitempty"`
	// Mode is a job's mode (mechanic, genius); Path a workflow's path
	// (quick, full, auto).
	Mode string `json:"mode,omitempty"`
	Path string `json:"path,omitempty"`
	// Base is the ref to start from ("": the remote's default branch).
	Base   string   `json:"base,omitempty"`
	Labels []string `json:"labels,omitempty"`
}

// FleetRunRef names a fleet run (16 hex digits).
type FleetRunRef struct {
	ID string `json:"id"`
}

// FleetAnswerParams answer a fleet run's question with one line.
type FleetAnswerParams struct {
	ID     string `json:"id"`
	Answer string `json:"answer"`
}

// FleetApplyParams apply a completed fleet run's branch ("merge" or
// "edit", as ApplyWorkflowParams.Mode).
type FleetApplyParams struct {
	ID   string `json:"id"`
	Mode string `json:"mode"`
}

// FleetEvent is one event of a fleet run: Kind "status" (Status: done,
// stopped, failed, running…), "message" (a line of its output) or
// "prompt" (Text: the question it now waits on).
type FleetEvent struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Status string `json:"status,omitempty"`
	Text   string `json:"text,omitempty"`
}

// Workflow methods.
const (
	// MethodWorkflows (client → server request, {}) returns WorkflowSummary[].
	MethodWorkflows = "autarch/workflows"
	// MethodWorkflow (client → server request, WorkflowRef) returns WorkflowDetail.
	MethodWorkflow = "autarch/workflow"
	// MethodFileAt (client → server request, FileAtParams) returns FileAtResult.
	MethodFileAt = "autarch/fileAt"
	// MethodWorkflowEvent (server → client notification) carries a WorkflowEvent.
	MethodWorkflowEvent = "autarch/workflowEvent"
	// MethodApprove (server → client request, Approval) returns a Verdict;
	// clients that implement it declare capabilities.experimental.autarch.approvals
	// = true (others get window/showMessageRequest).
	MethodApprove = "autarch/approve"
	// MethodDiagnostics (server → client request, DiagnosticsParams) returns
	// the editor's DiagnosticsResult for paths of the user's workspace
	// (read_lints); clients declare capabilities.experimental.autarch.diagnostics.
	MethodDiagnostics = "autarch/diagnostics"
	// MethodLanguageFeature (server → client request, LanguageFeatureParams)
	// returns the editor's own LanguageFeatureResult (its language features,
	// no second language server) for a file of the user's workspace: the
	// discussion agent's go_to_definition and find_references. A client
	// that does not answer it leaves them to Autarch's language servers.
	MethodLanguageFeature = "autarch/languageFeature"
)

// LanguageFeatureParams ask the editor for the definitions ("definition")
// or references ("references", declarations included) of the symbol at a
// 0-based line and UTF-16 character of a workspace-relative file.
type LanguageFeatureParams struct {
	Feature   string `json:"feature"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
}

// LanguageFeatureResult are the places the editor found: absolute file
// paths, 0-based lines and UTF-16 characters.
type LanguageFeatureResult struct {
	Locations []EditorLocation `json:"locations"`
}

// EditorLocation is one place in a file.
type EditorLocation struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
}

// NewWorkflowParams start a workflow.
type NewWorkflowParams struct {
	// Task is what the workflow should do.
	Task string `json:"task"`
	// Name is the workflow and branch name ("" makes one from the task).
	Name string `json:"name,omitempty"`
	// Path forces "quick" or "full" ("" follows the scope card).
	Path string `json:"path,omitempty"`
	// DryRun runs the workflow without changing the repository: reads run,
	// writes and commands are only recorded, no worktree, branch or commit
	// is made and nothing is kept; the plan is shown at the end (a message,
	// and in full in the log).
	DryRun bool `json:"dryRun,omitempty"`
	// Parallel is how many independent pulses run at once, each in its own
	// worktree, landing in plan order (0 or 1: one after another).
	Parallel int `json:"parallel,omitempty"`
}

// WorkflowRef names one workflow.
type WorkflowRef struct {
	WorkflowID string `json:"workflowId"`
	Name       string `json:"name,omitempty"`
}

// DiscussParams carry one message of the discussion.
type DiscussParams struct {
	Message string `json:"message"`
}

// AnswerParams answer a pending item of a waiting workflow: a question
// (Answers, one per question) or a card left waiting for approval (Verdict:
// approve, or reject with feedback).
type AnswerParams struct {
	WorkflowID string   `json:"workflowId"`
	PendingID  string   `json:"pendingId"`
	Answers    []Answer `json:"answers,omitempty"`
	Verdict    *Verdict `json:"verdict,omitempty"`
}

// ReviewBranchParams review HEAD against Base.
type ReviewBranchParams struct {
	Base string `json:"base"`
}

// SearchParams query the code index (semantic_search).
type SearchParams struct {
	Query      string `json:"query"`
	MaxResults int    `json:"maxResults,omitempty"`
}

// SearchHit is one semantic_search result.
type SearchHit struct {
	FilePath      string  `json:"file_path"`
	StartLine     int     `json:"start_line"`
	EndLine       int     `json:"end_line"`
	Snippet       string  `json:"snippet"`
	Score         float64 `json:"score"`
	AdjustedScore float64 `json:"adjusted_score"`
}

// ApplyWorkflowParams say how to apply: "merge" fast-forwards (or merges)
// the workflow branch into the current branch; "edit" brings the diff into
// the working tree as a workspace edit the user can undo.
type ApplyWorkflowParams struct {
	WorkflowID string `json:"workflowId"`
	Mode       string `json:"mode"`
}

// ApplyWorkflowResult says what apply did.
type ApplyWorkflowResult struct {
	Applied bool     `json:"applied"`
	Files   []string `json:"files"`
	Message string   `json:"message"`
}

// PulseDiffParams select a workflow's whole diff (PulseID "") or one pulse's.
type PulseDiffParams struct {
	WorkflowID string `json:"workflowId"`
	PulseID    string `json:"pulseId,omitempty"`
}

// PulseDiff is a diff between two commits, for a diff view.
type PulseDiff struct {
	Base  string          `json:"base"`
	Head  string          `json:"head"`
	Title string          `json:"title"`
	Files []PulseDiffFile `json:"files"`
}

// PulseDiffFile is one changed file.
type PulseDiffFile struct {
	Path      string `json:"path"`
	OldPath   string `json:"oldPath,omitempty"`
	Status    string `json:"status"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

// FileAtParams ask for a file's content at a commit.
type FileAtParams struct {
	Commit string `json:"commit"`
	Path   string `json:"path"`
}

// FileAtResult is a file's content ("" and Missing when it does not exist there).
type FileAtResult struct {
	Text    string `json:"text"`
	Missing bool   `json:"missing,omitempty"`
}

// EventKind says what a WorkflowEvent reports.
type EventKind string

// Workflow event kinds.
const (
	// EventStage: the workflow entered a stage (From, Text says from
	// where), or preflight runs (Status "running", Worktree).
	EventStage EventKind = "stage"
	// EventToolCall: an agent called a tool (Tool, Reason, ToolCallID).
	EventToolCall EventKind = "tool_call"
	// EventToolResult: a tool call ended (Tool, Failed, Text, ToolCallID).
	EventToolResult EventKind = "tool_result"
	// EventMessage: an agent or the user said something (Text).
	EventMessage EventKind = "message"
	// EventPulse: a pulse changed status (PulseID, Status, Text;
	// Unresolved).
	EventPulse EventKind = "pulse"
	// EventCard: a card was submitted or decided (Card).
	EventCard EventKind = "card"
	// EventReviewComment: the reviewer commented (Status is the severity).
	EventReviewComment EventKind = "review_comment"
	// EventReviewAnchor: the review's comments moved (Text is the review id).
	EventReviewAnchor EventKind = "review_anchor"
	// EventHalt: the workflow stopped, halted or was abandoned (Status, Text).
	EventHalt EventKind = "halt"
	// EventWaiting: the workflow waits for the user (Status is the pending
	// kind, Text its id).
	EventWaiting EventKind = "waiting"
	// EventUsage: tokens and cost of a model call (Usage; Text says it
	// in words).
	EventUsage EventKind = "usage"
	// EventDryRunPlan: a dry run's plan so far (DryRun), after each
	// recorded call and once more when the dry run ends (DryRun.Ended).
	EventDryRunPlan EventKind = "dry_run_plan"
)

// CardKind names a card.
type CardKind string

// Card kinds.
const (
	CardScope     CardKind = "scope"
	CardResearch  CardKind = "research"
	CardPlan      CardKind = "plan"
	CardExtension CardKind = "extension"
	CardReview    CardKind = "review"
)

// CardStatus is where a card stands.
type CardStatus string

// Card statuses.
const (
	CardSubmitted CardStatus = "submitted"
	CardApproved  CardStatus = "approved"
	CardRejected  CardStatus = "rejected"
)

// CardEvent is the card of an EventCard: which card and where it stands;
// a review card carries its recommendation.
type CardEvent struct {
	Kind           CardKind   `json:"kind"`
	Status         CardStatus `json:"status"`
	Recommendation string     `json:"recommendation,omitempty"`
}

// WorkflowEvent is something a workflow did. For kind "message" of stage
// "discussion", Status is the role ("user" or "assistant") and WorkflowID is "".
type WorkflowEvent struct {
	Kind       EventKind `json:"kind"`
	WorkflowID string    `json:"workflowId"`
	Stage      string    `json:"stage,omitempty"`
	PulseID    string    `json:"pulseId,omitempty"`
	Tool       string    `json:"tool,omitempty"`
	// ToolCallID pairs a tool_result with its tool_call.
	ToolCallID string `json:"toolCallId,omitempty"`
	// ParentToolCallID marks a sub-agent's activity: the id of the
	// dispatch_subagent call it works for (shown nested under that call);
	// Subagent is the sub-agent's type (explore, test, review).
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
	Subagent         string `json:"subagent,omitempty"`
	Reason           string `json:"reason,omitempty"`
	// Status is the pulse status, the severity of a comment, the pending
	// kind or how the workflow halted; for cards a readable summary (Card
	// holds the structure).
	Status string     `json:"status,omitempty"`
	Card   *CardEvent `json:"card,omitempty"`
	Text   string     `json:"text,omitempty"`
	Failed bool       `json:"failed,omitempty"`
	// From is the stage the workflow left (EventStage of a stage change).
	From string `json:"from,omitempty"`
	// Worktree is the folder preflight checks the build in (EventStage,
	// Status "running").
	Worktree string `json:"worktree,omitempty"`
	// Unresolved counts the issues a succeeded pulse left unresolved
	// (EventPulse).
	Unresolved int `json:"unresolved,omitempty"`
	// DryRun is the plan of an EventDryRunPlan.
	DryRun *DryRunPlanView `json:"dryRun,omitempty"`
	// Usage is an EventUsage's model call.
	Usage *UsageView `json:"usage,omitempty"`
}

// UsageView is one model call's tokens and cost (dollars).
type UsageView struct {
	PromptTokens     int     `json:"promptTokens"`
	CompletionTokens int     `json:"completionTokens"`
	Cost             float64 `json:"cost"`
}

// DryRunPlanView is what a dry run planned: the writes and commands its
// agents asked for, none executed, and the files they would change.
type DryRunPlanView struct {
	// Entries are the recorded calls in order.
	Entries []DryRunEntryView `json:"entries"`
	// Files are the files the plan would change, in the order it first
	// touches them, each with what would happen to it.
	Files []DryRunFileView `json:"files"`
	// Ended says the dry run is over and its state removed: nothing of it
	// waits for an answer any more; Outcome says how it ended and what to
	// do next.
	Ended   bool   `json:"ended,omitempty"`
	Outcome string `json:"outcome,omitempty"`
}

// DryRunEntryView is one recorded call of a dry run: where it was made
// ("scoping", "pulse pulse-1"), the tool, what it would have done ("would
// edit a.go: replace 1 line with 2"), why, and the file it would change.
type DryRunEntryView struct {
	Stage  string `json:"stage,omitempty"`
	Tool   string `json:"tool"`
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
	Path   string `json:"path,omitempty"`
	Change string `json:"change,omitempty"`
}

// DryRunFileView is one file a dry run would change and how.
type DryRunFileView struct {
	Path    string   `json:"path"`
	Changes []string `json:"changes"`
}

// WorkflowSummary is one row of the workflows list.
type WorkflowSummary struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Task         string  `json:"task"`
	Stage        string  `json:"stage"`
	Status       string  `json:"status"`
	StatusReason string  `json:"statusReason,omitempty"`
	Path         string  `json:"path,omitempty"`
	Branch       string  `json:"branch"`
	PulsesDone   int     `json:"pulsesDone"`
	Pulses       int     `json:"pulses"`
	Tokens       int     `json:"tokens"`
	Cost         float64 `json:"cost"`
	UpdatedAt    string  `json:"updatedAt"`
}

// WorkflowDetail is everything the side panel shows of one workflow.
type WorkflowDetail struct {
	Summary  WorkflowSummary `json:"summary"`
	Stages   []StageView     `json:"stages"`
	Scope    *CardView       `json:"scope"`
	Research *CardView       `json:"research"`
	Plan     *CardView       `json:"plan"`
	Pulses   []PulseView     `json:"pulses"`
	// Parallel is how many pulses may run at once (1: one after another).
	Parallel int            `json:"parallel,omitempty"`
	Pending  []PendingView  `json:"pending"`
	Activity []ActivityView `json:"activity"`
	Messages []MessageView  `json:"messages"`
	Review   *ReviewView    `json:"review"`
}

// StageView is one stage of the timeline: "done", "current" or "todo".
type StageView struct {
	Stage string `json:"stage"`
	State string `json:"state"`
}

// CardView is a scope card, research findings or plan, as Markdown.
type CardView struct {
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
	Status   string `json:"status"`
	Feedback string `json:"feedback,omitempty"`
}

// PulseView is one pulse of the plan with its outcome.
type PulseView struct {
	ID            string   `json:"id"`
	Title         string   `json:"title"`
	Status        string   `json:"status"`
	Summary       string   `json:"summary,omitempty"`
	Commit        string   `json:"commit,omitempty"`
	Branch        string   `json:"branch,omitempty"`
	Files         int      `json:"files"`
	Additions     int      `json:"additions"`
	Deletions     int      `json:"deletions"`
	Recovery      bool     `json:"recovery"`
	Unresolved    []string `json:"unresolved"`
	FailureReason string   `json:"failureReason,omitempty"`
	// Lane is the parallel lane running the pulse (1…N; 0: none), Worker
	// the process holding its lease (parallel pulses, issue 22).
	Lane   int    `json:"lane,omitempty"`
	Worker string `json:"worker,omitempty"`
	// WaitingOn are the pulses it still waits for: its dependencies, then
	// (finished early) the pulses before it in plan order, which land first.
	WaitingOn []string `json:"waitingOn,omitempty"`
	// MergeOrder is its place in the order pulses land (1-based).
	MergeOrder int `json:"mergeOrder,omitempty"`
	// Reverted is set on a pulse a revert made pending again (its work
	// undone on the workflow branch; redo or resume runs it again), and
	// Guidance is the user's guidance for that next run.
	Reverted bool   `json:"reverted,omitempty"`
	Guidance string `json:"guidance,omitempty"`
}

// PendingView is a question or approval the workflow waits for. Payload is
// JSON: a Question[] for kind "questions", {"message"} for "reply", and an
// Approval for every other kind (scope, research, plan, extension, tool).
type PendingView struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Stage   string `json:"stage"`
	Payload string `json:"payload"`
}

// ActivityView is one tool call of the activity feed.
type ActivityView struct {
	Time    string `json:"time"`
	Stage   string `json:"stage"`
	PulseID string `json:"pulseId,omitempty"`
	Tool    string `json:"tool"`
	Reason  string `json:"reason"`
	Failed  bool   `json:"failed"`
	// Subagent is set on a sub-agent's call (its type): the feed shows it
	// nested under its dispatch_subagent call, ParentCallID.
	Subagent string `json:"subagent,omitempty"`
	// CallID is the model's id of the call (a sub-agent's is unique only
	// under its ParentCallID).
	CallID string `json:"callId,omitempty"`
	// ParentCallID is the CallID of the dispatch_subagent call that ran a
	// sub-agent's call ("" for an agent's own calls).
	ParentCallID string `json:"parentCallId,omitempty"`
}

// MessageView is one message of the conversation.
type MessageView struct {
	Role  string `json:"role"`
	Stage string `json:"stage"`
	Text  string `json:"text"`
}

// ReviewView is a review card with its comments.
type ReviewView struct {
	ID             string        `json:"id"`
	Status         string        `json:"status"`
	Recommendation string        `json:"recommendation"`
	Summary        string        `json:"summary"`
	Base           string        `json:"base"`
	Head           string        `json:"head"`
	Comments       []CommentView `json:"comments"`
}

// CommentView is one review comment; lines are 1-based new-side lines.
type CommentView struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	FilePath    string `json:"filePath,omitempty"`
	StartLine   int    `json:"startLine,omitempty"`
	EndLine     int    `json:"endLine,omitempty"`
	Severity    string `json:"severity"`
	Category    string `json:"category"`
	Description string `json:"description"`
	Suggestion  string `json:"suggestion,omitempty"`
	PreExisting bool   `json:"preExisting"`
	// URI is where the comment anchors now: the user's file once it holds
	// the reviewed content (the workflow was applied), else the file at the
	// reviewed head commit, autarch-git:/<path>?commit=<sha>, as the pulse
	// diff view shows it. Empty for review-level comments.
	URI string `json:"uri,omitempty"`
}

// DiagnosticsParams ask for the editor's diagnostics of workspace paths
// (files or directories; empty for all).
type DiagnosticsParams struct {
	Paths []string `json:"paths"`
}

// DiagnosticsResult are the editor's diagnostics (read_lints' shape).
type DiagnosticsResult struct {
	Diagnostics []DiagnosticItem `json:"diagnostics"`
}

// DiagnosticItem is one diagnostic; line and column are 1-based.
type DiagnosticItem struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source"`
}

// MethodProject (client → server request, params {}) returns ProjectState:
// the first workspace folder's MCP servers and project rules, for the side
// panel.
const MethodProject = "autarch/project"

// ProjectState is what configures the agents of a workspace beyond the
// model: MCP servers and project instructions.
type ProjectState struct {
	// MCPServers are the configured servers, sorted by name.
	MCPServers []MCPServerState `json:"mcpServers"`
	// Rules are the project instruction files found (AGENTS.md,
	// CLAUDE.md, .cursor/rules/*.mdc).
	Rules []RuleFileState `json:"rules"`
	// Warnings say what is wrong (a rules cap passed, a configuration
	// that cannot be read).
	Warnings []string `json:"warnings"`
}

// MCPServerState is one MCP server.
type MCPServerState struct {
	Name string `json:"name"`
	// Transport is stdio, http or sse.
	Transport string `json:"transport"`
	// Origin is "repository" or "user".
	Origin string `json:"origin"`
	// State is stopped (not started yet: servers start with the first
	// agent that needs them), running, failed, exited or untrusted (a
	// repository server not started because the configuration is not trusted).
	State string `json:"state"`
	// Tools are the server's tools as agents see them (mcp_<server>_<tool>),
	// known once it started.
	Tools []string `json:"tools"`
	// Error is the last error ("" if none).
	Error string `json:"error,omitempty"`
}

// RuleFileState is one project instruction file.
type RuleFileState struct {
	// Path is relative to the workspace folder.
	Path string `json:"path"`
	// Size in bytes.
	Size int `json:"size"`
	// Applies says when agents get it ("always", "when a file in play
	// matches *.sql", "for files under svc/", "never (…)").
	Applies string `json:"applies"`
}
