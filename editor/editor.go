// Package editor is the port through which the domain reaches the person at
// the keyboard: messages, approvals, questions, progress, edits, diagnostics,
// documents and custom autarch/* notifications. The server package provides
// an LSP-backed implementation; the CLI uses the terminal implementation.
//
// The domain (agent, workflow, tools) depends only on the Client interface.
package editor

import (
	"context"

	"go.lsp.dev/protocol"
)

// MessageType is the severity of a message shown to the user (LSP values).
type MessageType int

// Message severities, numerically equal to LSP's MessageType.
const (
	Error   MessageType = 1
	Warning MessageType = 2
	Info    MessageType = 3
	Log     MessageType = 4
)

// Decision is the user's answer to an approval request.
type Decision string

// The answers an approval can receive. DecisionDismissed means the prompt was
// closed without an answer; callers must treat it as "not approved yet", never
// as approval.
const (
	DecisionApprove     Decision = "approve"
	DecisionReject      Decision = "reject"
	DecisionAlwaysAllow Decision = "always"
	DecisionDismissed   Decision = "dismissed"
	// DecisionAbort stops the whole run: the agent's turn ends and the
	// workflow is stopped (resumable), as when the user stops it.
	DecisionAbort Decision = "abort"
)

// Approval asks the user to allow something: a sensitive tool call or a stage
// card (scope, research, plan, extension, unresolved issues).
type Approval struct {
	// Kind names what is being approved, e.g. "tool", "scope", "plan".
	Kind string `json:"kind"`
	// Title is a one-line summary shown first.
	Title string `json:"title"`
	// Detail is the content being approved (a command, a card in Markdown).
	Detail string `json:"detail,omitempty"`
	// Reason is why the agent asks (a tool call's reason).
	Reason string `json:"reason,omitempty"`
	// AllowAlways offers the "Always allow" answer.
	AllowAlways bool `json:"allowAlways,omitempty"`
	// AllowAbort offers the "Abort all" answer (DecisionAbort).
	AllowAbort bool `json:"allowAbort,omitempty"`
	// WorkflowID is the workflow that asks ("" outside workflows).
	WorkflowID string `json:"workflowId,omitempty"`
	// JobID is the job that asks (kind "escalation"), with the
	// escalation's id, severity and context (JSON text).
	JobID        string `json:"jobId,omitempty"`
	EscalationID string `json:"escalationId,omitempty"`
	Severity     string `json:"severity,omitempty"`
	Context      string `json:"context,omitempty"`
}

// Verdict is the answer to an Approval; Feedback carries the user's text
// that goes with a rejection ("Request Changes").
type Verdict struct {
	Decision Decision `json:"decision"`
	Feedback string   `json:"feedback,omitempty"`
}

// Question types, as in spec/autarch-tools.md ask_questions.
const (
	SingleSelect = "single_select"
	MultiSelect  = "multi_select"
	Ranked       = "ranked"
	FreeText     = "free_text"
)

// Question is one question of ask_questions.
type Question struct {
	Type    string   `json:"type"`
	Prompt  string   `json:"prompt"`
	Options []string `json:"options,omitempty"`
}

// Answer answers the Question at the same index. Values holds the selected
// options (one for single_select, several for multi_select, all of them in
// order for ranked) or the text for free_text. Dismissed is true when the
// user closed the prompt; the question then stays pending.
type Answer struct {
	Values    []string `json:"values"`
	Dismissed bool     `json:"dismissed,omitempty"`
}

// Progress reports on one long-running piece of work (LSP workDoneProgress).
type Progress interface {
	// Report updates the message and the percentage (0–100, or -1 for none).
	Report(ctx context.Context, message string, percent int) error
	// End finishes the progress with a final message.
	End(ctx context.Context, message string) error
	// Cancelled is closed when the user cancels the work.
	Cancelled() <-chan struct{}
}

// Client is the domain's port to the editor or terminal.
type Client interface {
	// ShowMessage shows a notification.
	ShowMessage(ctx context.Context, typ MessageType, message string) error
	// LogMessage writes to the client's log (an activity line).
	LogMessage(ctx context.Context, typ MessageType, message string) error
	// ShowMessageRequest shows a message with action buttons and returns the
	// chosen title, or "" when dismissed.
	ShowMessageRequest(ctx context.Context, typ MessageType, message string, actions []string) (string, error)
	// Approve asks for an approval.
	Approve(ctx context.Context, a Approval) (Verdict, error)
	// Ask asks questions and returns one Answer per question.
	Ask(ctx context.Context, questions []Question) ([]Answer, error)
	// StartProgress begins a progress report.
	StartProgress(ctx context.Context, title string, cancellable bool) (Progress, error)
	// ApplyEdit asks the client to apply a workspace edit; it reports whether it was applied.
	ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error)
	// PublishDiagnostics replaces the diagnostics of one document.
	PublishDiagnostics(ctx context.Context, params protocol.PublishDiagnosticsParams) error
	// ShowDocument opens a document, optionally selecting a range.
	ShowDocument(ctx context.Context, params protocol.ShowDocumentParams) (bool, error)
	// Notify sends a custom autarch/* notification (params never nil).
	Notify(ctx context.Context, method string, params any) error
	// Call sends a custom autarch/* request (params never nil) and decodes the result.
	Call(ctx context.Context, method string, params, result any) error
}

// workflowKey carries the id of the workflow a call works for.
type workflowKey struct{}

// WithWorkflow marks ctx as working for a workflow, so that questions and
// approvals asked under it (including sensitive tool calls) can be shown
// under that workflow.
func WithWorkflow(ctx context.Context, workflowID string) context.Context {
	return context.WithValue(ctx, workflowKey{}, workflowID)
}

// WorkflowFrom returns the workflow ctx works for ("" for none).
func WorkflowFrom(ctx context.Context) string {
	id, _ := ctx.Value(workflowKey{}).(string)
	return id
}
