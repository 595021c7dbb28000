package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// This file maps the domain's events, approvals and questions to ACP
// shapes: pure functions, table-tested.

// toolKind is the ACP kind of a tool's calls, from its traits: a
// structured output tool (and an unknown tool, nil) is "other", a META
// tool "think", any other its effect's kind.
func toolKind(t tools.Tool) sdk.ToolKind {
	if t == nil || t.Kind() == tools.Terminal {
		return sdk.ToolKindOther
	}
	tr := t.Traits()
	if tr.Category == tools.CategoryMeta {
		return sdk.ToolKindThink
	}
	kinds := map[tools.Effect]sdk.ToolKind{
		tools.EffectRead: sdk.ToolKindRead, tools.EffectSearch: sdk.ToolKindSearch, tools.EffectEdit: sdk.ToolKindEdit,
		tools.EffectDelete: sdk.ToolKindDelete, tools.EffectExecute: sdk.ToolKindExecute, tools.EffectNetwork: sdk.ToolKindFetch,
		tools.EffectNone: sdk.ToolKindThink,
	}
	if k, ok := kinds[tr.Effect]; ok {
		return k
	}
	return sdk.ToolKindOther
}

// locationsAndDiffs are the files a call of t touches (absolute, under
// root) and, for edits, the diffs: what the tool reads of its arguments.
func locationsAndDiffs(t tools.Tool, raw []byte, root string) ([]sdk.ToolCallLocation, []sdk.ToolCallContent) {
	if t == nil {
		return nil, nil
	}
	var locs []sdk.ToolCallLocation
	var diffs []sdk.ToolCallContent
	for _, touch := range t.Touches(raw) {
		p := touch.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, filepath.FromSlash(p))
		}
		loc := sdk.ToolCallLocation{Path: p}
		if touch.Line > 0 {
			loc.Line = sdk.Ptr(touch.Line)
		}
		locs = append(locs, loc)
		for _, c := range touch.Changes {
			if c.Old == "" {
				diffs = append(diffs, sdk.ToolDiffContent(p, c.New))
			} else {
				diffs = append(diffs, sdk.ToolDiffContent(p, c.New, c.Old))
			}
		}
	}
	return locs, diffs
}

// callTracker pairs tool results with their calls and names the calls
// approvals and questions are about.
type callTracker struct {
	mu    sync.Mutex
	n     int
	open  map[string][]sdk.ToolCallId // by tool, oldest first
	order []sdk.ToolCallId            // every open call, oldest first
	// catalog has the tools whose calls are shown (nil: none known).
	catalog *tools.Registry
	// egress filters the arguments, reasons and results a client is
	// shown (records stored before the store filtered them, too): made
	// over the session's folder on its first call.
	egress *tools.Egress
}

// filter is the tracker's egress gate, made over root ("" before any
// call: the line rules and the environment's secrets).
func (c *callTracker) filter(root string) *tools.Egress {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.egress == nil {
		src := tools.EgressSources{Environ: os.Environ()}
		if root != "" {
			src = tools.DefaultEgressSources(root, "")
		}
		c.egress = tools.NewEgress(context.Background(), nil, src)
	}
	return c.egress
}

// newCallTracker tracks the calls of catalog's tools (nil: shown as other,
// with no files).
func newCallTracker(catalog *tools.Registry) *callTracker {
	return &callTracker{open: map[string][]sdk.ToolCallId{}, catalog: catalog}
}

// tool is the named tool of the catalog (nil when unknown).
func (c *callTracker) tool(name string) tools.Tool {
	if c.catalog == nil {
		return nil
	}
	t, _ := c.catalog.Get(name)
	return t
}

// next makes a call id that no model call has.
func (c *callTracker) next(prefix string) sdk.ToolCallId {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return sdk.ToolCallId(fmt.Sprintf("autarch-%s-%d", prefix, c.n))
}

// started records an open call and returns its id (made when the model
// gave none).
func (c *callTracker) started(tool, id string) sdk.ToolCallId {
	tid := sdk.ToolCallId(id)
	if id == "" {
		tid = c.next("call")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.open[tool] = append(c.open[tool], tid)
	c.order = append(c.order, tid)
	return tid
}

// finished closes a call: the one with the id, else the oldest open call
// of the tool.
func (c *callTracker) finished(tool, id string) (sdk.ToolCallId, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := c.open[tool]
	at := -1
	for i, t := range q {
		if id != "" && string(t) == id || id == "" && i == 0 {
			at = i
			break
		}
	}
	if at < 0 {
		return "", false
	}
	tid := q[at]
	c.open[tool] = append(q[:at:at], q[at+1:]...)
	if i := slices.Index(c.order, tid); i >= 0 {
		c.order = slices.Delete(c.order, i, i+1)
	}
	return tid, true
}

// approvalCall is the tool call an approval is shown on: a sensitive
// tool call's own (already announced), or a new one for a card.
type approvalCall struct {
	start  *sdk.SessionUpdate
	update sdk.ToolCallUpdate
}

// forApproval is the call an approval is about.
func (c *callTracker) forApproval(a editor.Approval) approvalCall {
	title := a.Title
	if a.Kind == "tool" {
		c.mu.Lock()
		var last sdk.ToolCallId
		if n := len(c.order); n > 0 {
			last = c.order[n-1]
		}
		c.mu.Unlock()
		if last != "" { // its title stays the call's reason
			return approvalCall{update: sdk.ToolCallUpdate{ToolCallId: last}}
		}
	}
	id := c.next(a.Kind)
	content := []sdk.ToolCallContent{}
	if a.Detail != "" {
		content = append(content, sdk.ToolContent(sdk.TextBlock(a.Detail)))
	}
	u := sdk.StartToolCall(id, title, sdk.WithStartKind(approvalKind(a.Kind)), sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(content))
	return approvalCall{start: &u, update: sdk.ToolCallUpdate{ToolCallId: id, Title: sdk.Ptr(title)}}
}

func approvalKind(kind string) sdk.ToolKind {
	switch kind {
	case "tool":
		return sdk.ToolKindExecute
	case "trust":
		return sdk.ToolKindOther
	}
	return sdk.ToolKindThink
}

// fromWorkflow maps a workflow event to session updates; args gives a
// call's stored arguments (nil: none).
func (c *callTracker) fromWorkflow(ev editor.WorkflowEvent, root string, args func(callID string) []byte) []sdk.SessionUpdate {
	switch ev.Kind {
	case editor.EventToolCall:
		var raw []byte
		if args != nil {
			raw = args(ev.ToolCallID)
		}
		return []sdk.SessionUpdate{c.toolCall(ev.Tool, ev.ToolCallID, ev.Reason, raw, root)}
	case editor.EventToolResult:
		return c.toolResult(ev.Tool, ev.ToolCallID, ev.Text, ev.Failed)
	case editor.EventMessage:
		if ev.Status == "user" || strings.TrimSpace(ev.Text) == "" {
			return nil // the client shows the user's own prompt
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(ev.Text + "\n\n")}
	case editor.EventStage:
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fmt.Sprintf("Stage: %s%s\n", ev.Stage, suffix(ev.Text)))}
	case editor.EventCard:
		if ev.Card == nil {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fmt.Sprintf("The %s card is %s%s\n", ev.Card.Kind, ev.Card.Status, suffix(ev.Status)))}
	case editor.EventReviewComment:
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(fmt.Sprintf("Review comment (%s): %s\n\n", ev.Status, ev.Text))}
	case editor.EventHalt:
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fmt.Sprintf("Workflow %s%s\n", strings.ToLower(ev.Status), suffix(ev.Text)))}
	}
	return nil
}

// fromJob maps a job event to session updates.
func (c *callTracker) fromJob(ev editor.JobEvent) []sdk.SessionUpdate {
	switch ev.Kind {
	case "tool_call":
		return []sdk.SessionUpdate{c.toolCall(ev.Tool, "", ev.Reason, nil, "")}
	case "tool_result":
		return c.toolResult(ev.Tool, "", ev.Text, ev.Failed)
	case "message":
		if strings.TrimSpace(ev.Text) == "" {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(ev.Text + "\n\n")}
	case "status", "commit", "check", "escalation":
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(fmt.Sprintf("%s: %s%s\n", ev.Kind, ev.Status, suffix(ev.Text)))}
	}
	return nil
}

// toolCall announces a call: its reason is the title.
func (c *callTracker) toolCall(tool, callID, reason string, raw []byte, root string) sdk.SessionUpdate {
	id := c.started(tool, callID)
	eg := c.filter(root)
	reason, raw = eg.Text(reason), eg.Args(raw)
	title := reason
	if title == "" {
		title = tool
	}
	t := c.tool(tool)
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(t)), sdk.WithStartStatus(sdk.ToolCallStatusInProgress)}
	locs, diffs := locationsAndDiffs(t, raw, root)
	if len(locs) > 0 {
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	if len(diffs) > 0 {
		opts = append(opts, sdk.WithStartContent(diffs))
	}
	if len(raw) > 0 && json.Valid(raw) {
		opts = append(opts, sdk.WithStartRawInput(json.RawMessage(raw)))
	}
	return sdk.StartToolCall(id, title, opts...)
}

// maxResultText bounds a result's text shown in a tool call.
const maxResultText = 4000

// toolResult completes a call (nothing when the call is unknown).
func (c *callTracker) toolResult(tool, callID, text string, failed bool) []sdk.SessionUpdate {
	id, ok := c.finished(tool, callID)
	if !ok {
		return nil
	}
	status := sdk.ToolCallStatusCompleted
	if failed {
		status = sdk.ToolCallStatusFailed
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status)}
	text = c.filter("").Auto(text)
	if text != "" {
		if len(text) > maxResultText {
			text = text[:maxResultText] + "…"
		}
		opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}))
	}
	return []sdk.SessionUpdate{sdk.UpdateToolCall(id, opts...)}
}

func suffix(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	return " — " + s
}

// Permission option ids.
const (
	optApprove = "approve"
	optAlways  = "always"
	optReject  = "reject"
	optChanges = "changes"
	optAbort   = "abort"
)

// permissionOptions are the answers an approval offers: a card is
// approved or sent back for changes (the next prompt says which); a tool
// call is allowed once, always, rejected, or stops the whole run.
func permissionOptions(a editor.Approval) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: optApprove, Name: "Approve", Kind: sdk.PermissionOptionKindAllowOnce}}
	if a.AllowAlways {
		opts = append(opts, sdk.PermissionOption{OptionId: optAlways, Name: "Always allow", Kind: sdk.PermissionOptionKindAllowAlways})
	}
	if isCard(a.Kind) {
		return append(opts, sdk.PermissionOption{OptionId: optChanges, Name: "Request changes (say what in your next message)", Kind: sdk.PermissionOptionKindRejectOnce})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	if a.AllowAbort {
		opts = append(opts, sdk.PermissionOption{OptionId: optAbort, Name: "Stop the run (resumable)", Kind: sdk.PermissionOptionKindRejectAlways})
	}
	return opts
}

// isCard reports whether an approval kind is a workflow card (answered
// with feedback).
func isCard(kind string) bool {
	switch kind {
	case "scope", "research", "plan", "extension", "unresolved", editor.ApprovalEscalation:
		return true
	}
	return false
}

// verdict is the decision a permission outcome gives; a cancelled
// request, "request changes" or an unknown option is dismissed (the item
// stays pending).
func verdict(res sdk.RequestPermissionResponse) editor.Verdict {
	if res.Outcome.Selected == nil {
		return editor.Verdict{Decision: editor.DecisionDismissed}
	}
	switch string(res.Outcome.Selected.OptionId) {
	case optApprove:
		return editor.Verdict{Decision: editor.DecisionApprove}
	case optAlways:
		return editor.Verdict{Decision: editor.DecisionAlwaysAllow}
	case optReject:
		return editor.Verdict{Decision: editor.DecisionReject}
	case optAbort:
		return editor.Verdict{Decision: editor.DecisionAbort}
	}
	return editor.Verdict{Decision: editor.DecisionDismissed}
}

// choiceOptions offer a question's choices.
func choiceOptions(choices []string) []sdk.PermissionOption {
	out := make([]sdk.PermissionOption, len(choices))
	for i, c := range choices {
		out[i] = sdk.PermissionOption{OptionId: choiceID(i), Name: c, Kind: sdk.PermissionOptionKindAllowOnce}
	}
	return out
}

// choiceID is the option id of a question's i-th choice.
func choiceID(i int) sdk.PermissionOptionId {
	return sdk.PermissionOptionId("choice-" + strconv.Itoa(i))
}

// chosen is the choice a permission outcome selected ("" for none).
func chosen(res sdk.RequestPermissionResponse, choices []string) string {
	if res.Outcome.Selected == nil {
		return ""
	}
	for i, c := range choices {
		if res.Outcome.Selected.OptionId == choiceID(i) {
			return c
		}
	}
	return ""
}

// planEntries are a workflow's stages, with its pulses after the pulsing
// stage.
func planEntries(d editor.WorkflowDetail) []sdk.PlanEntry {
	out := []sdk.PlanEntry{}
	for _, st := range d.Stages {
		if st.Stage == "done" {
			continue
		}
		out = append(out, sdk.PlanEntry{Content: stageTitle(st.Stage), Priority: sdk.PlanEntryPriorityMedium, Status: entryStatus(st.State, "done", "current")})
		if st.Stage != "pulsing" {
			continue
		}
		for _, p := range d.Pulses {
			out = append(out, sdk.PlanEntry{Content: pulseTitle(p), Priority: sdk.PlanEntryPriorityHigh, Status: entryStatus(p.Status, "succeeded", "running")})
		}
	}
	return out
}

func stageTitle(stage string) string {
	if stage == "" {
		return ""
	}
	return strings.ToUpper(stage[:1]) + stage[1:]
}

// entryStatus is a plan entry's status from a stage's state or a pulse's
// status (any case): completed when it is done, in progress when it is
// running, else pending.
func entryStatus(status, done, running string) sdk.PlanEntryStatus {
	switch strings.ToLower(status) {
	case done:
		return sdk.PlanEntryStatusCompleted
	case running:
		return sdk.PlanEntryStatusInProgress
	}
	return sdk.PlanEntryStatusPending
}

func pulseTitle(p editor.PulseView) string {
	t := fmt.Sprintf("Pulse %s: %s", p.ID, p.Title)
	switch strings.ToLower(p.Status) {
	case "failed", "stopped":
		t += fmt.Sprintf(" (%s%s)", strings.ToLower(p.Status), suffix(p.FailureReason))
	}
	if p.Reverted {
		t += " (reverted: /redo " + p.ID + " runs it again)"
	}
	return t
}

// pendingText tells the user what a waiting workflow asks and how the
// next prompt answers it.
func pendingText(p editor.PendingView) string {
	switch p.Kind {
	case "questions":
		var qs []editor.Question
		if json.Unmarshal([]byte(p.Payload), &qs) != nil {
			return "The workflow waits for answers: reply in your next message."
		}
		var b strings.Builder
		b.WriteString("The workflow asks:\n")
		for i, q := range qs {
			fmt.Fprintf(&b, "%d. %s", i+1, q.Prompt)
			if len(q.Options) > 0 {
				fmt.Fprintf(&b, " (%s: %s)", questionHint(q.Type), strings.Join(q.Options, "; "))
			}
			b.WriteString("\n")
		}
		if len(qs) > 1 {
			b.WriteString("Answer in your next message, one line per question, in order.")
		} else {
			b.WriteString("Answer in your next message.")
		}
		return b.String()
	case "reply":
		return replyMessage(p) + "\n\nReply in your next message."
	}
	var a editor.Approval
	json.Unmarshal([]byte(p.Payload), &a)
	return fmt.Sprintf("The %s waits for your decision: reply \"approve\", or say what to change.", orKind(a.Title, p.Kind))
}

// replyNote is what a workflow waiting for a reply to its agent's message
// says when the message was just shown.
const replyNote = "Reply to the agent's message above in your next message."

// replyMessage is the agent's message a "reply" pending item waits on
// ("" for other kinds), trimmed.
func replyMessage(p editor.PendingView) string {
	if p.Kind != "reply" {
		return ""
	}
	var m struct {
		Message string `json:"message"`
	}
	json.Unmarshal([]byte(p.Payload), &m)
	return strings.TrimSpace(m.Message)
}

func orKind(title, kind string) string {
	if title != "" {
		return "\"" + title + "\""
	}
	return kind
}

func questionHint(typ string) string {
	switch typ {
	case editor.MultiSelect:
		return "pick any, separated by commas"
	case editor.Ranked:
		return "rank all, separated by commas, best first"
	}
	return "pick one"
}

// answersFor reads the prompt as the answers to a pending question: one
// line per question (a single question takes the whole text); a choice
// may be given by its number.
func answersFor(p editor.PendingView, text string) ([]editor.Answer, error) {
	if p.Kind == "reply" {
		return []editor.Answer{{Values: []string{text}}}, nil
	}
	var qs []editor.Question
	if err := json.Unmarshal([]byte(p.Payload), &qs); err != nil || len(qs) == 0 {
		return nil, fmt.Errorf("pending question %s cannot be read: %v", p.ID, err)
	}
	lines := []string{strings.TrimSpace(text)}
	if len(qs) > 1 {
		lines = nil
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, stripNumber(l))
			}
		}
		if len(lines) != len(qs) {
			return nil, invalidParams("the workflow asked %d questions and your message has %d non-empty lines: answer one line per question, in order", len(qs), len(lines))
		}
	}
	out := make([]editor.Answer, len(qs))
	for i, q := range qs {
		a, err := editor.ParseAnswer(q, lines[i])
		if err != nil {
			return nil, invalidParams("%v", err)
		}
		out[i] = a
	}
	return out, nil
}

// stripNumber drops a leading "1." or "1)".
func stripNumber(l string) string {
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i < len(l) && (l[i] == '.' || l[i] == ')') {
		return strings.TrimSpace(l[i+1:])
	}
	return l
}

// verdictFromText reads a prompt as a decision on a card: an approval
// (editor.ParseDecision's words) approves, anything else requests changes
// with the text as feedback.
func verdictFromText(text string) editor.Verdict {
	if d, ok := editor.ParseDecision(text, editor.Approval{}); ok && d == editor.DecisionApprove {
		return editor.Verdict{Decision: editor.DecisionApprove}
	}
	return editor.Verdict{Decision: editor.DecisionReject, Feedback: strings.TrimSpace(text)}
}

// defaultWindow is the context window of a model whose settings name none.
const defaultWindow = 128000

// usageUpdate reports the context a call used out of the window (0: the
// default) and the session's cost so far.
func usageUpdate(u editor.UsageView, window int, cost float64) sdk.SessionUpdate {
	if window <= 0 {
		window = defaultWindow
	}
	return sdk.SessionUpdate{UsageUpdate: &sdk.SessionUsageUpdate{Used: u.PromptTokens + u.CompletionTokens, Size: window, Cost: &sdk.Cost{Amount: cost, Currency: "USD"}}}
}

// promptText is the prompt's text: text blocks, and embedded resources
// and links named with their content.
func promptText(blocks []sdk.ContentBlock) string {
	var b strings.Builder
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n\n%s:\n```\n%s\n```\n", r.Uri, r.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, " %s", c.ResourceLink.Uri)
		}
	}
	return strings.TrimSpace(b.String())
}
