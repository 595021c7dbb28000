package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sourcegraph/conc/pool"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// Event is something an agent did, for the side panel, the CLI and logs.
type Event struct {
	Kind   string `json:"kind"` // "tool_call", "tool_result", "text", "retry", "compaction", "usage", "budget_warning", "warning"
	Role   string `json:"role"`
	Tool   string `json:"tool,omitempty"`
	Reason string `json:"reason,omitempty"`
	Text   string `json:"text,omitempty"`
	Failed bool   `json:"failed,omitempty"`
	// CallID is the model's id of the tool call a tool_call or
	// tool_result event is about: it pairs a result with its call.
	CallID string `json:"callId,omitempty"`
	// Parent is the call id of the dispatch_subagent call whose sub-agent
	// did this ("" for the agent's own activity); Subagent is its type.
	Parent   string `json:"parent,omitempty"`
	Subagent string `json:"subagent,omitempty"`
	// Args are a tool_call's arguments as the model gave them, for the
	// workflow's record of a sub-agent's calls (research provenance);
	// not part of the event stream's JSON.
	Args json.RawMessage `json:"-"`
	// Outcome is how a tool_result's call ended: ok, failed, or refused
	// (nothing ran: a guardrail, hook, policy or the person said no).
	// Failed stays set for failed and refused calls.
	Outcome CallOutcome `json:"outcome,omitempty"`
	// Usage is a usage event's model call: its tokens and cost.
	Usage *CallUsage `json:"usage,omitempty"`
}

// CallOutcome says how a tool call ended.
type CallOutcome string

// Tool call outcomes.
const (
	// CallOK: the tool ran and succeeded.
	CallOK CallOutcome = "ok"
	// CallFailed: the tool ran, or could not, and reports a failure the
	// model must resolve.
	CallFailed CallOutcome = "failed"
	// CallRefused: the call was not run because something said no (a
	// guardrail, a hook, the confirmation policy, the person, the secret
	// gate, the workspace's allow_delete).
	CallRefused CallOutcome = "refused"
)

// OutcomeOf is how a tool result's call ended.
func OutcomeOf(r tools.Result) CallOutcome {
	switch {
	case r.Refused:
		return CallRefused
	case r.Failed:
		return CallFailed
	}
	return CallOK
}

// CallUsage is one model call's tokens and what they cost, in dollars.
type CallUsage struct {
	Usage
	Cost float64 `json:"cost"`
}

// Config configures an Agent.
type Config struct {
	Role      string
	Model     Model
	ModelName string
	Engine    *tools.Engine
	Session   *tools.Session
	// Events receives activity (nil: dropped).
	Events func(Event)
	// MaxIterations caps model calls per turn (default 40).
	MaxIterations int
	// ContextWindow is the model's window in tokens (default 128000);
	// compaction starts at 80% of it.
	ContextWindow int
	// Meter counts usage across the workflow and enforces the budget (nil: none).
	Meter   *Meter
	Pricing Pricing
	// JSONEnvelope selects the {"tool_calls": [...]} text envelope for
	// models without native tool calling.
	JSONEnvelope bool
	// InPlay are files the agent's task is about (a pulse's expected
	// changes): with those it reads and writes, they decide which project
	// rules apply (nearest AGENTS.md, Cursor rules' globs).
	InPlay []string
	// Pinned returns text kept verbatim through compaction (scope card,
	// plan, baselines); nil for none.
	Pinned func() string
	// Workflow and SessionID identify the agent's session to hooks
	// (AUTARCH_WORKFLOW, AUTARCH_SESSION); a SessionID is made when empty.
	Workflow  string
	SessionID string
	// History seeds the transcript (a resumed conversation); OnMessage,
	// when not nil, hears of every message appended to the transcript, in
	// order, as it is appended (a job persists its conversation with it).
	History   []Message
	OnMessage func(Message)
	// Spec, when not nil, is the agent's role in place of Spec(Role): a
	// role its caller defines (a swarm agent's prompt, no terminal tools).
	Spec *RoleSpec
	// Call, when not nil, runs each tool call in place of Engine.Call;
	// Engine still gives the tools offered, which calls are read-only and
	// the hooks. A swarm agent's calls go to the swarm's engine, which
	// answers the model's mistakes (an unknown tool, arguments that are
	// not JSON) and records rate limits itself.
	Call func(ctx context.Context, c ToolCall) (tools.Result, error)
	// InOrder runs every call of a message one by one in the model's
	// order, read-only ones too (a swarm's calls count against its rate
	// limits in that order).
	InOrder bool
	// Hosted turns belong to a run whose caller fires session_start and
	// session_end (a swarm: once per run, not per agent turn).
	Hosted bool
}

// ErrBlocked is returned (wrapped, with the hook's reason) when a
// pre_llm_call hook blocks a model call.
var ErrBlocked = errors.New("model call blocked by a pre_llm_call hook")

// OutcomeKind says how a turn ended.
type OutcomeKind string

// Turn endings.
const (
	// Terminal: a structured output tool was called and accepted.
	OutcomeTerminal OutcomeKind = "terminal"
	// Text: the model answered without calling tools.
	OutcomeText OutcomeKind = "text"
	// Failed: the iteration limit was reached.
	OutcomeFailed OutcomeKind = "failed"
	// Budget: the budget cap stopped the turn.
	OutcomeBudget OutcomeKind = "budget"
)

// Outcome is how a turn ended.
type Outcome struct {
	Kind OutcomeKind
	// Tool and Args are the accepted terminal call.
	Tool string
	Args json.RawMessage
	// Text is the final assistant text (Text), or the failure reason.
	Text  string
	Usage Usage
	// Iterations is the number of model calls this turn.
	Iterations int
}

// Agent is one agent with its transcript.
type Agent struct {
	cfg        Config
	spec       RoleSpec
	transcript []Message
	compacted  int
	// task is the input that started the agent's work, kept verbatim
	// when the transcript is compacted at a yield.
	task string
	// started and ended record session_start and session_end having fired.
	started, ended bool
	rules          *projectRules
	// delegated is what sub-agents used during the current calls, added
	// to the turn's usage (dispatch calls may run in parallel).
	delegatedMu sync.Mutex
	delegated   Usage
}

// New makes an agent for a role.
func New(cfg Config) (*Agent, error) {
	spec, err := roleSpec(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Model == nil || cfg.Engine == nil || cfg.Session == nil {
		return nil, errors.New("agent needs a model, an engine and a session")
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = 40
	}
	if cfg.ContextWindow <= 0 {
		cfg.ContextWindow = 128000
	}
	if cfg.Meter == nil {
		cfg.Meter = NewMeter(0)
	}
	if cfg.SessionID == "" {
		cfg.SessionID = newSessionID()
	}
	// The egress gate's last line: no request leaves unfiltered.
	cfg.Model = FilterModel(cfg.Model, cfg.Session.Egress())
	return &Agent{cfg: cfg, spec: spec, transcript: append([]Message(nil), cfg.History...)}, nil
}

// appendMessages adds messages to the transcript and tells OnMessage.
func (a *Agent) appendMessages(msgs ...Message) {
	a.transcript = append(a.transcript, msgs...)
	if a.cfg.OnMessage != nil {
		for _, m := range msgs {
			a.cfg.OnMessage(m)
		}
	}
}

// Transcript returns the conversation so far (without system messages).
func (a *Agent) Transcript() []Message { return append([]Message(nil), a.transcript...) }

// Compactions is how many times the transcript was compacted.
func (a *Agent) Compactions() int { return a.compacted }

func (a *Agent) emit(e Event) {
	if a.cfg.Events != nil {
		// Events go to the store, the editor and ACP clients: what they
		// carry of calls and results passes the egress gate.
		eg := a.cfg.Session.Egress()
		e.Text, e.Reason, e.Args = eg.Auto(e.Text), eg.Text(e.Reason), eg.Args(e.Args)
		e.Role = a.spec.Name
		a.cfg.Events(e)
	}
}

func (a *Agent) isTerminal(name string) bool {
	for _, t := range a.spec.Terminal {
		if t == name {
			return true
		}
	}
	return false
}

// RunTurn adds the user's input and runs the model ⇄ tools loop until a
// terminal tool is accepted, the model answers in text, the iteration limit
// or the budget stops it, or ctx is cancelled.
//
// The first turn fires the session_start hooks; a turn that ends the
// agent's work (terminal, failed, budget) fires session_end. Hooks see the
// agent, workflow and session (AUTARCH_AGENT, …).
func (a *Agent) RunTurn(ctx context.Context, input string) (out Outcome, err error) {
	ctx = a.hookContext(ctx)
	if !a.started && !a.cfg.Hosted {
		a.started = true
		a.fire(ctx, tools.EventSessionStart, map[string]any{"role": a.spec.Name})
	}
	defer func() {
		if err != nil {
			a.fire(ctx, tools.EventError, map[string]any{"role": a.spec.Name, "error": err.Error()})
		}
		if err == nil && out.Kind != OutcomeText {
			a.End(ctx)
		}
	}()
	if input != "" {
		a.appendMessages(Message{Role: RoleUser, Content: input})
	}
	if a.task == "" {
		a.task = input
	}
	actions := 0
	if input == "" {
		// A resumed conversation cut between a call and its results.
		done, err := a.answerPending(ctx, &actions)
		if err != nil {
			return out, err
		}
		if done != nil {
			out.Kind, out.Tool, out.Args = OutcomeTerminal, done.Name, done.Args
			return out, nil
		}
	}
	for out.Iterations < a.cfg.MaxIterations {
		if err := a.cfg.Meter.Exceeded(); err != nil {
			out.Kind, out.Text = OutcomeBudget, err.Error()
			return out, nil
		}
		a.maybeCompact(ctx)
		req := a.request()
		req.OnRetry = func(r Retry) { a.emit(Event{Kind: "retry", Text: r.String()}) }
		resp, err := HookedCall(ctx, a.cfg.Engine.Hooks(), a.cfg.Model, req, a.spec.Name, out.Iterations+1,
			func(delta string) { a.emit(Event{Kind: "text", Text: delta}) }, a.warn)
		if errors.Is(err, ErrBlocked) {
			return out, err
		}
		if err != nil {
			return out, fmt.Errorf("model call: %w", err)
		}
		out.Iterations++
		out.Usage = out.Usage.Add(resp.Usage)
		if a.cfg.Meter.Record(resp.Usage, a.cfg.Pricing.Cost(resp.Usage)) {
			_, cost, _ := a.cfg.Meter.Totals()
			a.emit(Event{Kind: "budget_warning", Text: fmt.Sprintf("$%.4f spent: 80%% of the budget", cost)})
			a.fire(ctx, tools.EventBudgetWarning, map[string]any{"role": a.spec.Name, "cost": cost})
		}
		msg := resp.Message
		msg.Role = RoleAssistant
		var after string
		if a.cfg.JSONEnvelope {
			if calls, before, rest, ok := ParseEnvelope(msg.Content); ok {
				msg.ToolCalls, msg.Content, after = calls, strings.TrimSpace(before), strings.TrimSpace(rest)
			}
		}
		a.appendMessages(msg)
		if len(msg.ToolCalls) == 0 {
			out.Kind, out.Text = OutcomeText, msg.Content
			return out, nil
		}
		results, done, err := a.runCalls(ctx, msg.ToolCalls, after, &actions)
		out.Usage = out.Usage.Add(a.takeDelegated())
		if err != nil {
			return out, err
		}
		a.appendMessages(results...)
		if done != nil {
			if done.Name == terminal.RequestExtension {
				a.compactAtYield(ctx)
			}
			out.Kind, out.Tool, out.Args = OutcomeTerminal, done.Name, done.Args
			a.warn(a.cfg.Engine.Hooks().Fire(ctx, tools.EventAgentComplete, done.Name, "", map[string]any{"role": a.spec.Name, "tool": done.Name}))
			return out, nil
		}
	}
	out.Kind = OutcomeFailed
	out.Text = fmt.Sprintf("iteration limit reached: %d model calls in this turn without finishing (%s)", a.cfg.MaxIterations, strings.Join(a.spec.Terminal, " or "))
	return out, nil
}

// End fires the session_end hooks, once; RunTurn calls it when the
// agent's work ends, callers that drop an agent mid-conversation may.
func (a *Agent) End(ctx context.Context) {
	if a.ended || !a.started {
		return
	}
	a.ended = true
	a.fire(a.hookContext(ctx), tools.EventSessionEnd, map[string]any{"role": a.spec.Name})
}

// fire runs a notification event's hooks; a hook that fails is reported
// as a warning event ([Hook NAME: FAILED (exit N)]) and changes nothing.
func (a *Agent) fire(ctx context.Context, event string, payload map[string]any) {
	a.warn(a.cfg.Engine.Hooks().Fire(ctx, event, "", "", payload))
}

// warn reports the hooks that failed.
func (a *Agent) warn(out tools.HookOutcome) {
	for _, w := range out.Warnings {
		a.emit(Event{Kind: "warning", Text: w})
	}
}

// hookContext gives the hooks fired under ctx the agent, workflow and session.
func (a *Agent) hookContext(ctx context.Context) context.Context {
	hc := tools.HookContextFrom(ctx)
	if hc.Agent == "" {
		hc.Agent = a.spec.Name
	}
	if hc.Workflow == "" {
		hc.Workflow = a.cfg.Workflow
	}
	if hc.Session == "" {
		hc.Session = a.cfg.SessionID
	}
	if hc.Report == nil {
		hc.Report = func(r tools.HookRun) { a.emit(Event{Kind: "hook", Tool: r.Tool, Text: r.Line(), Failed: r.Failed()}) }
	}
	return tools.WithHookContext(ctx, hc)
}

// newSessionID is a random identifier of an agent session.
func newSessionID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// request builds the messages for the next model call.
func (a *Agent) request() Request {
	system := a.spec.Prompt
	schemas := a.cfg.Engine.Registry().Schemas(nil)
	if a.cfg.JSONEnvelope {
		b, _ := json.Marshal(schemas)
		system += "\n" + envelopeInstructions(string(b))
	}
	msgs := []Message{{Role: RoleSystem, Content: system}}
	if a.rules == nil {
		a.rules = loadRules(a.cfg.Session.Root().Dir())
	}
	if rules, warn := a.rules.text(append(a.cfg.Session.FilesInPlay(), a.cfg.InPlay...)); rules != "" {
		msgs = append(msgs, Message{Role: RoleSystem, Content: rules})
		if warn != "" {
			a.emit(Event{Kind: "warning", Text: warn})
		}
	}
	if a.cfg.Pinned != nil {
		if p := a.cfg.Pinned(); p != "" {
			msgs = append(msgs, Message{Role: RoleSystem, Content: p})
		}
	}
	if notes := a.cfg.Session.Notes(); len(notes) > 0 {
		var b strings.Builder
		b.WriteString("Your notes for this stage:\n")
		for _, n := range notes {
			b.WriteString("- " + n.Text + "\n")
		}
		msgs = append(msgs, Message{Role: RoleSystem, Content: b.String()})
	}
	msgs = append(msgs, a.transcript...)
	req := Request{Model: a.cfg.ModelName, Messages: msgs}
	if !a.cfg.JSONEnvelope {
		req.Tools = schemas
	}
	return req
}

// runCalls checks the terminal-tool rules, then runs the calls: read-only
// calls in parallel batches, others one by one, results in call order. It
// returns the tool messages and the accepted terminal call, if any.
func (a *Agent) runCalls(ctx context.Context, calls []ToolCall, after string, actions *int) ([]Message, *ToolCall, error) {
	results := make([]Message, len(calls))
	answer := func(i int, content string) {
		results[i] = Message{Role: RoleTool, ToolCallID: calls[i].ID, Content: content}
	}
	if msg := a.terminalViolation(calls, after); msg != "" {
		for i := range calls {
			answer(i, toolError(msg))
			a.emit(Event{Kind: "tool_result", Tool: calls[i].Name, Failed: true, Outcome: CallFailed, Text: msg, CallID: calls[i].ID})
		}
		return results, nil, nil
	}
	var terminalCall *ToolCall
	type job struct {
		i    int
		call ToolCall
	}
	var batch []job
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		p := pool.New().WithErrors().WithContext(ctx)
		for _, j := range batch {
			p.Go(func(ctx context.Context) error {
				res, err := a.call(ctx, j.call)
				answer(j.i, res.Output)
				return err
			})
		}
		batch = nil
		return p.Wait()
	}
	for i, c := range calls {
		a.emit(Event{Kind: "tool_call", Tool: c.Name, Reason: reasonOf(c.Args), CallID: c.ID, Args: c.Args})
		t, known := a.cfg.Engine.Registry().Get(c.Name)
		if a.spec.Name == Research && !a.isTerminal(c.Name) {
			*actions++
			if *actions > ResearchActionLimit {
				if err := flush(); err != nil {
					return nil, nil, err
				}
				answer(i, toolError(fmt.Sprintf("Research action limit reached: %d research actions in this turn. Call request_extension now with what you completed and what remains; you will continue next turn.", ResearchActionLimit)))
				continue
			}
		}
		if known && t.Kind() == tools.ReadOnly && !a.cfg.InOrder {
			batch = append(batch, job{i, c})
			continue
		}
		if err := flush(); err != nil {
			return nil, nil, err
		}
		res, err := a.call(ctx, c)
		if err != nil {
			return nil, nil, err
		}
		answer(i, res.Output)
		if a.isTerminal(c.Name) && !res.Failed {
			terminalCall = &calls[i]
		}
	}
	if err := flush(); err != nil {
		return nil, nil, err
	}
	return results, terminalCall, nil
}

// call runs one tool call through the engine and reports it.
func (a *Agent) call(ctx context.Context, c ToolCall) (tools.Result, error) {
	run := func(ctx context.Context, c ToolCall) (tools.Result, error) {
		return a.cfg.Engine.Call(ctx, a.cfg.Session, c.Name, c.Args)
	}
	if a.cfg.Call != nil {
		run = a.cfg.Call
	}
	res, err := run(withParent(ctx, a, c.ID), c)
	if err != nil {
		return res, fmt.Errorf("tool %s: %w", c.Name, err)
	}
	if res.Failed {
		a.warn(a.cfg.Engine.Hooks().Fire(ctx, tools.EventError, c.Name, "", map[string]any{"role": a.spec.Name, "tool": c.Name, "error": clip(res.Output, 2000)}))
	}
	a.emit(Event{Kind: "tool_result", Tool: c.Name, Failed: res.Failed, Outcome: OutcomeOf(res), Text: summarizeOutput(res.Output), CallID: c.ID})
	return res, nil
}

// terminalViolation checks the structured output rules: at most one
// terminal tool per message, last, with nothing after it.
func (a *Agent) terminalViolation(calls []ToolCall, after string) string {
	var terminals []string
	last := -1
	for i, c := range calls {
		if a.isTerminal(c.Name) {
			terminals = append(terminals, c.Name)
			last = i
		}
	}
	switch {
	case len(terminals) > 1:
		return fmt.Sprintf("Only one structured output tool may be called per message, and it must be the only call; you called %s. Nothing was run: call exactly one of them, alone.", strings.Join(terminals, " and "))
	case len(terminals) == 1 && len(calls) > 1:
		return fmt.Sprintf("%s ends your turn and must be the only call in its message; nothing was run. Finish your other work first, then call %s alone.", calls[last].Name, calls[last].Name)
	case len(terminals) == 1 && after != "":
		return fmt.Sprintf("%s must be the last content of your message, with no text after it; nothing was run. Call it again with nothing after it.", calls[last].Name)
	}
	return ""
}

// maybeCompact shortens the transcript when it nears the context window,
// keeping the latest turns; the system prompt, pinned items and notes are
// rebuilt on every request, so they survive verbatim.
func (a *Agent) maybeCompact(ctx context.Context) {
	limit := a.cfg.ContextWindow * 8 / 10
	if estimateTokens(a.request().Messages) < limit {
		return
	}
	keep := len(a.transcript) / 2
	// Never split an assistant message from its tool results.
	for keep > 0 && a.transcript[len(a.transcript)-keep].Role == RoleTool {
		keep++
	}
	if keep >= len(a.transcript) {
		return
	}
	old := a.transcript[:len(a.transcript)-keep]
	summary := summarize(fmt.Sprintf("[Earlier conversation compacted: %d messages were summarized to stay within the context window.]", len(old)), old)
	a.transcript = append([]Message{{Role: RoleUser, Content: summary}}, a.transcript[len(a.transcript)-keep:]...)
	a.compacted++
	a.emit(Event{Kind: "compaction", Text: fmt.Sprintf("compacted %d messages", len(old))})
	a.fire(ctx, tools.EventContextCompress, map[string]any{"role": a.spec.Name, "messages": len(old)})
}

// compactAtYield compacts the transcript where the agent yields
// (request_extension, which the spec lets compact the context): what came
// before the yielding message is summarized, the task that started the
// agent's work is kept verbatim, and so is the yielding message with its
// results. The system prompt, rules, pinned items and notes are rebuilt
// on every request.
func (a *Agent) compactAtYield(ctx context.Context) {
	last := len(a.transcript) - 1
	for last >= 0 && a.transcript[last].Role != RoleAssistant {
		last--
	}
	if last < 0 {
		return
	}
	old := a.transcript[:last]
	if len(old) > 0 && old[0].Role == RoleUser && old[0].Content == a.task {
		old = old[1:]
	}
	if len(old) == 0 {
		return
	}
	var head []Message
	if a.task != "" {
		head = append(head, Message{Role: RoleUser, Content: a.task})
	}
	summary := summarize(fmt.Sprintf("[Earlier conversation compacted at your yield: %d messages were summarized.]", len(old)), old)
	head = append(head, Message{Role: RoleUser, Content: summary})
	a.transcript = append(head, a.transcript[last:]...)
	a.compacted++
	a.emit(Event{Kind: "compaction", Text: fmt.Sprintf("compacted %d messages at the yield", len(old))})
	a.fire(ctx, tools.EventContextCompress, map[string]any{"role": a.spec.Name, "messages": len(old)})
}

// summarize lists what happened in msgs, under a header line.
func summarize(header string, msgs []Message) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for _, m := range msgs {
		switch {
		case m.Role == RoleUser:
			fmt.Fprintf(&b, "- user: %s\n", clip(m.Content, 300))
		case m.Role == RoleAssistant:
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "- you called %s: %s\n", c.Name, reasonOf(c.Args))
			}
			if m.Content != "" {
				fmt.Fprintf(&b, "- you said: %s\n", clip(m.Content, 200))
			}
		}
	}
	return b.String()
}

// estimateTokens approximates tokens as characters / 4.
func estimateTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + 16
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Args)
		}
	}
	return n / 4
}

func reasonOf(args json.RawMessage) string {
	var r struct {
		Reason string `json:"reason"`
	}
	json.Unmarshal(args, &r)
	return r.Reason
}

func toolError(msg string) string {
	b, _ := json.Marshal(map[string]any{"success": false, "error": msg})
	return string(b)
}

func summarizeOutput(s string) string { return clip(s, 200) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
