package testkit

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/editor"
)

// Editor is the one fake editor.Client of the tests. It answers approvals
// from a script (or with one verdict), questions from a script, custom
// requests through OnCall, and records everything it is asked and shown:
// approvals, questions, messages, log lines, notifications, progress,
// edits and diagnostics. It is safe for concurrent use.
//
// Configure it before use through its fields; what it recorded is read
// through its methods.
type Editor struct {
	// T fails the test on what the script did not expect (an approval or
	// questions beyond the script, a bad scripted answer).
	T testing.TB
	// Approvals answer approval requests in order: "approve", "always",
	// "dismiss", "abort", "reject" or "reject:feedback".
	Approvals []string
	// Verdict answers every approval once Approvals is used up (or when
	// it is empty); with no Decision an approval beyond the script fails
	// the test and is dismissed.
	Verdict editor.Verdict
	// Answers answer Ask calls in order: for each question its values,
	// or nil to dismiss it. An Ask beyond the script fails the test and
	// is dismissed.
	Answers [][][]string
	// NoChat answers a workflow's chat box (a single free-text question
	// whose prompt starts "Reply to") with editor.ErrNoTTY: no one to chat
	// with.
	NoChat bool
	// OnCall, when set, answers custom requests; without it a request
	// fails with an error.
	OnCall func(ctx context.Context, method string, params, result any) error
	// OnApprove, when set, is called (outside the lock) after an approval
	// was recorded and before it is answered.
	OnApprove func(editor.Approval)
	// ApplyEdits is what ApplyEdit reports (whether the edit was applied).
	ApplyEdits bool

	mu        sync.Mutex
	asked     []editor.Approval
	questions [][]editor.Question
	messages  []string
	requests  []string
	logs      []string
	notes     []Notification
	progress  []*Progress
	edits     []protocol.WorkspaceEdit
	diags     []protocol.PublishDiagnosticsParams
	docs      []protocol.ShowDocumentParams
}

var _ editor.Client = (*Editor)(nil)

// Notification is one custom notification the editor was sent.
type Notification struct {
	Method string
	Params any
}

// SetVerdict changes the verdict that answers approvals from now on.
func (e *Editor) SetVerdict(d editor.Decision) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Verdict = editor.Verdict{Decision: d}
}

// Approve records the approval and answers it from the script.
func (e *Editor) Approve(ctx context.Context, a editor.Approval) (editor.Verdict, error) {
	e.mu.Lock()
	e.asked = append(e.asked, a)
	v := e.nextVerdict(a)
	on := e.OnApprove
	e.mu.Unlock()
	if on != nil {
		on(a)
	}
	return v, nil
}

// nextVerdict takes the next scripted answer (under e.mu).
func (e *Editor) nextVerdict(a editor.Approval) editor.Verdict {
	if len(e.Approvals) == 0 {
		if e.Verdict.Decision == "" {
			e.errorf("unexpected approval request: %s", a.Title)
			return editor.Verdict{Decision: editor.DecisionDismissed}
		}
		return e.Verdict
	}
	next := e.Approvals[0]
	e.Approvals = e.Approvals[1:]
	switch d := editor.Decision(next); d {
	case editor.DecisionApprove, editor.DecisionAlwaysAllow, editor.DecisionDismissed, editor.DecisionAbort, editor.DecisionReject:
		return editor.Verdict{Decision: d}
	case "dismiss":
		return editor.Verdict{Decision: editor.DecisionDismissed}
	}
	if fb, ok := strings.CutPrefix(next, "reject:"); ok {
		return editor.Verdict{Decision: editor.DecisionReject, Feedback: fb}
	}
	e.errorf("bad scripted approval %q", next)
	return editor.Verdict{Decision: editor.DecisionDismissed}
}

func (e *Editor) errorf(format string, args ...any) {
	if e.T == nil {
		panic("testkit.Editor: " + format + " (and no T to report it)")
	}
	e.T.Helper()
	e.T.Errorf(format, args...)
}

// Ask records the questions and answers them from the script.
func (e *Editor) Ask(ctx context.Context, qs []editor.Question) ([]editor.Answer, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.questions = append(e.questions, slices.Clone(qs))
	if e.NoChat && len(qs) == 1 && qs[0].Type == editor.FreeText && strings.HasPrefix(qs[0].Prompt, "Reply to") {
		return nil, editor.ErrNoTTY
	}
	if len(e.Answers) == 0 {
		e.errorf("unexpected questions: %+v", qs)
		return []editor.Answer{{Dismissed: true}}, nil
	}
	next := e.Answers[0]
	e.Answers = e.Answers[1:]
	out := make([]editor.Answer, len(qs))
	for i := range qs {
		if i >= len(next) || next[i] == nil {
			out[i] = editor.Answer{Dismissed: true}
			continue
		}
		out[i] = editor.Answer{Values: next[i]}
	}
	return out, nil
}

// ShowMessage records the message.
func (e *Editor) ShowMessage(_ context.Context, _ editor.MessageType, msg string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.messages = append(e.messages, msg)
	return nil
}

// LogMessage records the log line.
func (e *Editor) LogMessage(_ context.Context, _ editor.MessageType, msg string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, msg)
	return nil
}

// ShowMessageRequest records the request and dismisses it.
func (e *Editor) ShowMessageRequest(_ context.Context, _ editor.MessageType, msg string, _ []string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = append(e.requests, msg)
	return "", nil
}

// StartProgress begins a recorded progress item.
func (e *Editor) StartProgress(_ context.Context, title string, _ bool) (editor.Progress, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := &Progress{e: e, Title: title, cancel: make(chan struct{})}
	e.progress = append(e.progress, p)
	return p, nil
}

// ApplyEdit records the edit and reports ApplyEdits.
func (e *Editor) ApplyEdit(_ context.Context, _ string, edit protocol.WorkspaceEdit) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.edits = append(e.edits, edit)
	return e.ApplyEdits, nil
}

// PublishDiagnostics records the diagnostics.
func (e *Editor) PublishDiagnostics(_ context.Context, params protocol.PublishDiagnosticsParams) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.diags = append(e.diags, params)
	return nil
}

// ShowDocument records the document and reports it not shown.
func (e *Editor) ShowDocument(_ context.Context, params protocol.ShowDocumentParams) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.docs = append(e.docs, params)
	return false, nil
}

// Notify records the notification.
func (e *Editor) Notify(_ context.Context, method string, params any) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.notes = append(e.notes, Notification{Method: method, Params: params})
	return nil
}

// Call answers a custom request through OnCall.
func (e *Editor) Call(ctx context.Context, method string, params, result any) error {
	if e.OnCall == nil {
		return errors.New("no custom requests in tests")
	}
	return e.OnCall(ctx, method, params, result)
}

// recorded is a copy of what e recorded in *list.
func recorded[T any](e *Editor, list *[]T) []T {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(*list)
}

// Asked is every approval the editor was asked, in order.
func (e *Editor) Asked() []editor.Approval {
	return recorded(e, &e.asked)
}

// Last is the last approval asked (zero when none was).
func (e *Editor) Last() editor.Approval {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.asked) == 0 {
		return editor.Approval{}
	}
	return e.asked[len(e.asked)-1]
}

// Kinds is the kind of every approval asked, in order (never nil).
func (e *Editor) Kinds() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := []string{}
	for _, a := range e.asked {
		out = append(out, a.Kind)
	}
	return out
}

// Questions is every Ask's questions, in order.
func (e *Editor) Questions() [][]editor.Question {
	return recorded(e, &e.questions)
}

// Messages are the messages shown, in order.
func (e *Editor) Messages() []string {
	return recorded(e, &e.messages)
}

// Requests are the messages with buttons shown (ShowMessageRequest), in
// order.
func (e *Editor) Requests() []string {
	return recorded(e, &e.requests)
}

// Logs are the log lines written, in order.
func (e *Editor) Logs() []string {
	return recorded(e, &e.logs)
}

// Notifications are the custom notifications sent, in order.
func (e *Editor) Notifications() []Notification {
	return recorded(e, &e.notes)
}

// Edits are the workspace edits asked for, in order.
func (e *Editor) Edits() []protocol.WorkspaceEdit {
	return recorded(e, &e.edits)
}

// Diagnostics are the diagnostics published, in order.
func (e *Editor) Diagnostics() []protocol.PublishDiagnosticsParams {
	return recorded(e, &e.diags)
}

// OpenProgress maps the title of every progress item not ended to its
// reports.
func (e *Editor) OpenProgress() map[string][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string][]string{}
	for _, p := range e.progress {
		if !p.ended {
			out[p.Title] = slices.Clone(p.reports)
		}
	}
	return out
}

// Progress is one recorded progress item.
type Progress struct {
	e       *Editor
	Title   string
	reports []string
	ended   bool
	cancel  chan struct{}
}

// Report records the message.
func (p *Progress) Report(_ context.Context, msg string, _ int) error {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.reports = append(p.reports, msg)
	return nil
}

// End ends the item.
func (p *Progress) End(context.Context, string) error {
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.ended = true
	return nil
}

// Cancelled is never closed: no one cancels a test's progress.
func (p *Progress) Cancelled() <-chan struct{} { return p.cancel }
