package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/editor"
)

// Action titles for approvals shown through window/showMessageRequest.
const (
	actionApprove = "Approve"
	actionReject  = "Reject"
	actionAlways  = "Always allow"
	actionAbort   = "Abort all"
)

// lspClient implements editor.Client over the LSP connection.
type lspClient struct{ s *Server }

var _ editor.Client = (*lspClient)(nil)

type messageParams struct {
	Type    editor.MessageType `json:"type"`
	Message string             `json:"message"`
}

type actionItem struct {
	Title string `json:"title"`
}

// noLinks is a message with no [label](target) an editor would make a
// link of: VS Code's notifications turn [x](command:…) into a link they
// open with commands allowed, and the messages carry what models and
// agents wrote (a job's stop reason, a question, an approval's reason,
// errors naming the agent's files). A space between ] and ( keeps every
// word (redteam s12 04).
func noLinks(msg string) string { return strings.ReplaceAll(msg, "](", "] (") }

func (c *lspClient) ShowMessage(ctx context.Context, typ editor.MessageType, msg string) error {
	return c.s.conn.Notify(ctx, "window/showMessage", messageParams{typ, noLinks(msg)})
}

func (c *lspClient) LogMessage(ctx context.Context, typ editor.MessageType, msg string) error {
	return c.s.conn.Notify(ctx, "window/logMessage", messageParams{typ, msg})
}

func (c *lspClient) ShowMessageRequest(ctx context.Context, typ editor.MessageType, msg string, actions []string) (string, error) {
	params := struct {
		messageParams
		Actions []actionItem `json:"actions"`
	}{messageParams: messageParams{typ, noLinks(msg)}}
	for _, a := range actions {
		params.Actions = append(params.Actions, actionItem{a})
	}
	var chosen *actionItem
	if _, err := c.s.conn.Call(ctx, "window/showMessageRequest", params, &chosen); err != nil {
		return "", fmt.Errorf("window/showMessageRequest: %w", err)
	}
	if chosen == nil {
		return "", nil
	}
	return chosen.Title, nil
}

// Approve uses autarch/approve when the client declares it (approve,
// request changes with feedback, always allow); otherwise
// window/showMessageRequest with Approve/Reject(/Always allow) buttons.
func (c *lspClient) Approve(ctx context.Context, a editor.Approval) (editor.Verdict, error) {
	c.s.mu.Lock()
	native := c.s.client.approvals
	c.s.mu.Unlock()
	if a.WorkflowID == "" {
		a.WorkflowID = editor.WorkflowFrom(ctx)
	}
	if native {
		var v editor.Verdict
		if err := c.Call(ctx, editor.MethodApprove, a, &v); err != nil {
			return editor.Verdict{}, err
		}
		return v, nil
	}
	actions := []string{actionApprove, actionReject}
	if a.AllowAlways {
		actions = append(actions, actionAlways)
	}
	if a.AllowAbort {
		actions = append(actions, actionAbort)
	}
	msg := approvalText(a)
	title, err := c.ShowMessageRequest(ctx, editor.Info, msg, actions)
	if err != nil {
		return editor.Verdict{}, err
	}
	switch title {
	case actionApprove:
		return editor.Verdict{Decision: editor.DecisionApprove}, nil
	case actionReject:
		return editor.Verdict{Decision: editor.DecisionReject}, nil
	case actionAlways:
		return editor.Verdict{Decision: editor.DecisionAlwaysAllow}, nil
	case actionAbort:
		return editor.Verdict{Decision: editor.DecisionAbort}, nil
	}
	return editor.Verdict{Decision: editor.DecisionDismissed}, nil
}

// approvalText renders what is asked and why in one message.
func approvalText(a editor.Approval) string {
	var b strings.Builder
	b.WriteString(a.Title)
	if a.Reason != "" {
		b.WriteString("\nWhy: ")
		b.WriteString(a.Reason)
	}
	if a.Detail != "" {
		b.WriteString("\n\n")
		b.WriteString(a.Detail)
	}
	return b.String()
}

// Ask uses autarch/askQuestions when the client declares it; otherwise
// single-choice questions go through window/showMessageRequest and the
// others stay pending (Dismissed) for an executeCommand answer.
func (c *lspClient) Ask(ctx context.Context, qs []editor.Question) ([]editor.Answer, error) {
	c.s.mu.Lock()
	custom := c.s.client.questions
	c.s.mu.Unlock()
	if custom {
		var res editor.AskQuestionsResult
		params := editor.AskQuestionsParams{Questions: qs, WorkflowID: editor.WorkflowFrom(ctx)}
		if len(qs) == 1 && qs[0].Type == editor.FreeText {
			params.Title = qs[0].Prompt
		}
		if err := c.Call(ctx, editor.MethodAskQuestions, params, &res); err != nil {
			return nil, err
		}
		if len(res.Answers) != len(qs) {
			return nil, fmt.Errorf("%s: client answered %d of %d questions", editor.MethodAskQuestions, len(res.Answers), len(qs))
		}
		return res.Answers, nil
	}
	answers := make([]editor.Answer, len(qs))
	for i, q := range qs {
		if q.Type != editor.SingleSelect {
			answers[i] = editor.Answer{Dismissed: true}
			continue
		}
		title, err := c.ShowMessageRequest(ctx, editor.Info, q.Prompt, q.Options)
		if err != nil {
			return nil, err
		}
		if title == "" {
			answers[i] = editor.Answer{Dismissed: true}
			continue
		}
		answers[i] = editor.Answer{Values: []string{title}}
	}
	return answers, nil
}

func (c *lspClient) StartProgress(ctx context.Context, title string, cancellable bool) (editor.Progress, error) {
	c.s.mu.Lock()
	supported := c.s.client.workDoneProgress
	c.s.mu.Unlock()
	token, cancelled := c.s.progress.add()
	p := &lspProgress{c: c, token: token, cancelled: cancelled, enabled: supported}
	if !supported {
		return p, nil
	}
	if _, err := c.s.conn.Call(ctx, "window/workDoneProgress/create", map[string]string{"token": token}, nil); err != nil {
		c.s.progress.done(token)
		return nil, fmt.Errorf("window/workDoneProgress/create: %w", err)
	}
	err := p.send(ctx, progressValue{Kind: "begin", Title: title, Cancellable: cancellable})
	return p, err
}

// progressValue is the value of a $/progress workDone notification.
type progressValue struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitempty"`
	Cancellable bool   `json:"cancellable,omitempty"`
	Message     string `json:"message,omitempty"`
	Percentage  *int   `json:"percentage,omitempty"`
}

type lspProgress struct {
	c         *lspClient
	token     string
	cancelled chan struct{}
	enabled   bool
}

func (p *lspProgress) send(ctx context.Context, v progressValue) error {
	if !p.enabled {
		return nil
	}
	return p.c.s.conn.Notify(ctx, "$/progress", struct {
		Token string        `json:"token"`
		Value progressValue `json:"value"`
	}{p.token, v})
}

func (p *lspProgress) Report(ctx context.Context, message string, percent int) error {
	v := progressValue{Kind: "report", Message: message}
	if percent >= 0 {
		v.Percentage = &percent
	}
	return p.send(ctx, v)
}

func (p *lspProgress) End(ctx context.Context, message string) error {
	p.c.s.progress.done(p.token)
	return p.send(ctx, progressValue{Kind: "end", Message: message})
}

func (p *lspProgress) Cancelled() <-chan struct{} { return p.cancelled }

// ApplyEdit uses workspace/applyEdit; a client without it applies nothing.
func (c *lspClient) ApplyEdit(ctx context.Context, label string, edit protocol.WorkspaceEdit) (bool, error) {
	c.s.mu.Lock()
	supported := c.s.client.applyEdit
	c.s.mu.Unlock()
	if !supported {
		return false, errors.New("the editor cannot apply workspace edits (workspace.applyEdit): merge the workflow branch instead")
	}
	var res struct {
		Applied       bool   `json:"applied"`
		FailureReason string `json:"failureReason"`
	}
	params := &protocol.ApplyWorkspaceEditParams{Edit: edit}
	if label != "" {
		params.Label = &label
	}
	if _, err := c.s.conn.Call(ctx, "workspace/applyEdit", params, &res); err != nil {
		return false, fmt.Errorf("workspace/applyEdit: %w", err)
	}
	if !res.Applied && res.FailureReason != "" {
		c.s.log.Info("client did not apply edit", "reason", res.FailureReason)
	}
	return res.Applied, nil
}

func (c *lspClient) PublishDiagnostics(ctx context.Context, params protocol.PublishDiagnosticsParams) error {
	return c.s.conn.Notify(ctx, "textDocument/publishDiagnostics", &params)
}

// ShowDocument uses window/showDocument when the client supports it;
// otherwise it reports false (not shown).
func (c *lspClient) ShowDocument(ctx context.Context, params protocol.ShowDocumentParams) (bool, error) {
	c.s.mu.Lock()
	supported := c.s.client.showDocument
	c.s.mu.Unlock()
	if !supported {
		return false, nil
	}
	var res struct {
		Success bool `json:"success"`
	}
	if _, err := c.s.conn.Call(ctx, "window/showDocument", &params, &res); err != nil {
		return false, fmt.Errorf("window/showDocument: %w", err)
	}
	return res.Success, nil
}

func (c *lspClient) Notify(ctx context.Context, method string, params any) error {
	if params == nil {
		params = struct{}{}
	}
	return c.s.conn.Notify(ctx, method, params)
}

func (c *lspClient) Call(ctx context.Context, method string, params, result any) error {
	if params == nil {
		params = struct{}{}
	}
	if _, err := c.s.conn.Call(ctx, method, params, result); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
