package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// conversation is one agent at work in a stage (or in one pulse: each
// pulse has its own, so it sees only its own messages), with everything it
// does recorded. Outside a workflow (a review of any range, wf.ID "")
// nothing but the events is recorded.
type conversation struct {
	e        *Engine
	wf       store.Workflow
	stage    Stage
	pulse    string // the store id of the pulse, "" outside pulses
	sess     *tools.Session
	agent    *agent.Agent
	role     string
	model    string
	saved    int // notes already in the store
	mu       sync.Mutex
	running  map[string][]int64 // open tool-call records by tool name
	children map[string]int64   // open sub-agent call records by "parent/call id"
	onCall   func(ctx context.Context, tool, reason string)
	// announced is the first call of the message whose calls tool_call
	// events are announcing, next the index of the next one to match.
	announced *agent.ToolCall
	next      int
}

// talkOptions say where and with what an agent works.
type talkOptions struct {
	// Root is the directory the agent's tools are confined to.
	Root string
	// Extra are tools added to the role's (review tools, the gated
	// complete_pulse).
	Extra []tools.Tool
	// Pinned is kept verbatim through compaction (scope card, plan, …).
	Pinned string
	// InPlay are files the task is about (a pulse's expected changes):
	// they decide, with the files read and written, which project rules
	// apply.
	InPlay []string
	// Baselines are preflight's known issues (pulses filter their output).
	Baselines []tools.Baseline
	// OnToolCall, when set, hears of each tool call the agent makes, with
	// its reason (preflight's progress).
	OnToolCall func(ctx context.Context, tool, reason string)
}

// open starts a conversation for a stage's role.
func (e *Engine) open(ctx context.Context, wf store.Workflow, stage Stage, pulseID string, o talkOptions) (*conversation, error) {
	role := stage.Role()
	var search tools.Searcher
	if e.cfg.Search != nil {
		search = e.cfg.Search(o.Root)
	}
	var diags tools.Diagnostics
	if o.Root == e.cfg.Repo.Top() {
		diags = e.cfg.Diagnostics // worktrees have no editor: read_lints runs the project's checker
	}
	sess, err := tools.NewSession(tools.SessionConfig{Root: o.Root, Role: role, Mode: e.cfg.Mode, Editor: e.cfg.Editor, Search: search,
		Workflow: wf.ID != "", StateDir: e.cfg.Repo.StateDir(), Diagnostics: diags,
		Commands: e.cfg.Repository.Commands.Policy(e.cfg.Commands), GitCommonDir: e.cfg.Repo.CommonDir(), Protected: e.cfg.Guardrails.ProtectedPaths(),
		AllowDelete: e.cfg.Repository.Workspace.AllowDelete, AllowedOnly: e.cfg.Repository.Commands.AllowedOnly,
		DryRun: e.cfg.DryRun, OnDryRun: e.planFor(ctx, wf.ID, stage, pulseID), Egress: e.cfg.Egress, LangServers: e.langServersOf(wf.ID),
		Masks: e.masksOf(wf.ID, o.Root)})
	if err != nil {
		return nil, fmt.Errorf("%s session: %w", role, err)
	}
	sess.SetBaselines(o.Baselines)
	var notes []store.Note
	if wf.ID != "" {
		if notes, err = e.cfg.Store.Notes(ctx, wf.ID, string(stage)); err != nil {
			sess.Close()
			return nil, err
		}
	}
	for _, n := range notes {
		sess.AddNote(n.Content)
	}
	extra := slices.Clone(o.Extra)
	if e.cfg.Tools != nil {
		extra = append(extra, e.cfg.Tools(ctx, role)...)
	}
	reg, err := agent.Registry(role, tools.Deps{Web: e.cfg.Web}, extra...)
	if err == nil {
		reg, err = e.cfg.Repository.Apply(reg, role)
	}
	if err == nil && diags == nil { // with the editor's diagnostics, its language features answer too
		reg = tools.OfferCodeIntelligence(reg, o.Root, e.cfg.Repository.LangServerList())
	}
	if err != nil {
		sess.Close()
		return nil, err
	}
	c := &conversation{e: e, wf: wf, stage: stage, pulse: pulseID, sess: sess, role: role, model: e.cfg.Settings.ModelFor(role),
		saved: len(notes), running: map[string][]int64{}, children: map[string]int64{}, onCall: o.OnToolCall}
	pinned := o.Pinned
	a, err := agent.New(agent.Config{Role: role, Model: e.cfg.Model, ModelName: c.model,
		Engine: tools.NewEngine(reg, e.cfg.Hooks, e.cfg.Log).WithGuardrails(e.cfg.Guardrails), Session: sess,
		MaxIterations: e.cfg.MaxIterations, ContextWindow: e.cfg.Settings.ContextWindow, Meter: e.cfg.Meter, Pricing: e.cfg.Settings.Pricing,
		JSONEnvelope: e.cfg.Settings.JSONEnvelope, Pinned: func() string { return pinned }, Workflow: wf.ID, InPlay: o.InPlay,
		Events: func(ev agent.Event) { c.observe(ctx, ev) }})
	if err != nil {
		sess.Close()
		return nil, err
	}
	c.agent = a
	return c, nil
}

// close ends the agent's session (session_end fires once, also when the
// stage failed or was stopped) and releases its root.
func (c *conversation) close() {
	c.agent.End(context.Background())
	c.sess.Close()
}

// observe records the agent's tool calls with their reasons and forwards
// its activity.
func (c *conversation) observe(ctx context.Context, ev agent.Event) {
	ctx = context.WithoutCancel(ctx)
	out := Event{Kind: editor.EventKind(ev.Kind), WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, Tool: ev.Tool, Reason: ev.Reason, Text: ev.Text, Failed: ev.Failed, ToolCallID: ev.CallID}
	if ev.Parent != "" {
		// A sub-agent's activity: shown nested under its dispatch_subagent
		// call, never matched with the agent's own calls.
		if ev.Kind != "text" {
			out.ParentToolCallID, out.Subagent = ev.Parent, ev.Subagent
			c.recordSubagent(ctx, ev)
			c.e.emit(out)
		}
		return
	}
	switch ev.Kind {
	case "tool_call":
		if c.wf.ID == "" {
			break
		}
		if c.onCall != nil {
			c.onCall(ctx, ev.Tool, ev.Reason)
		}
		c.mu.Lock()
		call := c.announcedCall(ev.Tool)
		c.mu.Unlock()
		tc := store.ToolCall{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, CallID: call.ID, Name: ev.Tool, Reason: ev.Reason,
			Args: storedArgs(call.Args)}
		if err := c.e.cfg.Store.AddToolCall(ctx, &tc); err != nil {
			c.e.cfg.Log.Warn("record tool call", "err", err)
		}
		c.mu.Lock()
		c.running[ev.Tool] = append(c.running[ev.Tool], tc.ID)
		c.mu.Unlock()
	case "tool_result":
		c.mu.Lock()
		var id int64
		if q := c.running[ev.Tool]; len(q) > 0 {
			id, c.running[ev.Tool] = q[0], q[1:]
		}
		c.mu.Unlock()
		if id != 0 {
			if err := c.e.cfg.Store.FinishToolCall(ctx, id, ev.Text, run.OutcomeOf(ev)); err != nil {
				c.e.cfg.Log.Warn("record tool result", "err", err)
			}
		}
	case "text":
		// Streamed pieces go to Deltas only; the whole message is recorded
		// (and emitted) at the end of the turn.
		c.e.delta(Delta{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, Text: ev.Text})
		return
	}
	c.e.emit(out)
}

// recordSubagent stores a sub-agent's tool call as a child of the
// dispatch_subagent call that runs it (ev.Parent), and its outcome when it
// ends: the stored activity (the side panel after a refresh, ACP replays)
// and research provenance hold what sub-agents did.
func (c *conversation) recordSubagent(ctx context.Context, ev agent.Event) {
	if c.wf.ID == "" {
		return
	}
	key := ev.Parent + "/" + ev.CallID
	switch ev.Kind {
	case "tool_call":
		tc := store.ToolCall{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, CallID: ev.CallID, ParentCallID: ev.Parent,
			Subagent: ev.Subagent, Name: ev.Tool, Reason: ev.Reason, Args: storedArgs(ev.Args)}
		if err := c.e.cfg.Store.AddToolCall(ctx, &tc); err != nil {
			c.e.cfg.Log.Warn("record a sub-agent's tool call", "err", err)
			return
		}
		c.mu.Lock()
		c.children[key] = tc.ID
		c.mu.Unlock()
	case "tool_result":
		c.mu.Lock()
		id := c.children[key]
		delete(c.children, key)
		c.mu.Unlock()
		if id != 0 {
			if err := c.e.cfg.Store.FinishToolCall(ctx, id, ev.Text, run.OutcomeOf(ev)); err != nil {
				c.e.cfg.Log.Warn("record a sub-agent's tool result", "err", err)
			}
		}
	}
}

// announcedCall is the call a tool_call event announces (zero when it
// cannot be told). The agent announces the calls of its latest message in
// order, each just before running it, after appending the message to its
// transcript: the event's call is the next one of that name in the
// transcript's last assistant message. A message is known by its calls'
// backing array, which the transcript's copies share. An event for a call
// not in that message (a sub-agent's) matches nothing and moves nothing.
// c.mu is held.
func (c *conversation) announcedCall(tool string) agent.ToolCall {
	if c.agent == nil {
		return agent.ToolCall{}
	}
	tr := c.agent.Transcript()
	var calls []agent.ToolCall
	for i := len(tr) - 1; i >= 0 && calls == nil; i-- {
		if tr[i].Role == agent.RoleAssistant {
			calls = tr[i].ToolCalls
		}
	}
	if len(calls) == 0 {
		return agent.ToolCall{}
	}
	if &calls[0] != c.announced {
		c.announced, c.next = &calls[0], 0
	}
	for i := c.next; i < len(calls); i++ {
		if calls[i].Name == tool {
			c.next = i + 1
			return calls[i]
		}
	}
	return agent.ToolCall{}
}

// maxStoredArg bounds each string of a stored call's arguments: paths,
// commands and patterns are kept whole, a written file's content is cut.
const maxStoredArg = 2000

// storedArgs are a call's arguments as the store keeps them: the model's
// JSON with long strings cut, "{}" when there are none, a JSON string of
// the text when the model's arguments are not JSON.
func storedArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		b, _ := json.Marshal(clipArg(string(raw)))
		return b
	}
	if len(raw) <= maxStoredArg {
		return raw
	}
	b, err := json.Marshal(clipArgs(v))
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

// clipArgs cuts the long strings of a decoded JSON value.
func clipArgs(v any) any {
	switch x := v.(type) {
	case string:
		return clipArg(x)
	case []any:
		for i := range x {
			x[i] = clipArgs(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = clipArgs(x[k])
		}
	}
	return v
}

func clipArg(s string) string {
	if len(s) <= maxStoredArg {
		return s
	}
	cut := maxStoredArg
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d more bytes]", len(s)-cut)
}

// record keeps one message of the conversation and returns its id (0
// when it is not kept).
func (c *conversation) record(ctx context.Context, role, content string, data any) int64 {
	if c.wf.ID == "" {
		return 0
	}
	m := store.Message{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, Role: role, Content: content}
	if data != nil {
		m.Data, _ = json.Marshal(data)
	}
	if err := c.e.cfg.Store.AddMessage(context.WithoutCancel(ctx), &m); err != nil {
		c.e.cfg.Log.Warn("record message", "err", err)
	}
	return m.ID
}

// kickoff records the message that started a pulse (its first run's) as
// the pulse's initiating message.
func (c *conversation) kickoff(ctx context.Context, messageID int64) {
	if c.pulse == "" || messageID == 0 {
		return
	}
	if err := c.e.cfg.Store.SetInitiatingMessage(context.WithoutCancel(ctx), c.pulse, messageID); err != nil {
		c.e.cfg.Log.Warn("record the pulse's initiating message", "err", err)
	}
}

// saveNotes stores the notes the agent took this turn.
func (c *conversation) saveNotes(ctx context.Context) {
	notes := c.sess.Notes()
	if c.wf.ID == "" {
		return
	}
	for _, n := range notes[min(c.saved, len(notes)):] {
		if err := c.e.cfg.Store.AddNote(context.WithoutCancel(ctx), &store.Note{WorkflowID: c.wf.ID, Stage: string(c.stage), Content: n.Text}); err != nil {
			c.e.cfg.Log.Warn("record note", "err", err)
		}
	}
	c.saved = len(notes)
}

// recordUsage stores a turn's token use and cost.
func (c *conversation) recordUsage(ctx context.Context, u agent.Usage) {
	if u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return
	}
	cost := c.e.cfg.Settings.Pricing.Cost(u)
	if c.wf.ID == "" {
		return
	}
	if err := c.e.cfg.Store.AddUsage(context.WithoutCancel(ctx), &store.Usage{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse,
		Model: c.model, PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens), Cost: cost}); err != nil {
		c.e.cfg.Log.Warn("record usage", "err", err)
	}
	c.e.emit(Event{Kind: "usage", WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse,
		Text:  fmt.Sprintf("%d prompt + %d completion tokens, $%.4f", u.PromptTokens, u.CompletionTokens, cost),
		Usage: &editor.UsageView{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Cost: cost}})
}

// stageFailure is a stage whose agent could not finish (iteration limit,
// budget, no result after many turns).
type stageFailure struct{ reason string }

func (f *stageFailure) Error() string { return f.reason }

// handler decides what a stage's terminal call means: the next input for
// the agent, or done.
type handler func(ctx context.Context, out agent.Outcome) (next string, done bool, err error)

// endsWith is the handler of a stage that ends with one terminal tool: a
// call of any other gets nudge; tool's arguments are decoded into a T and
// given to done.
func endsWith[T any](tool, nudge string, done func(ctx context.Context, p T) (string, bool, error)) handler {
	return func(ctx context.Context, out agent.Outcome) (string, bool, error) {
		if out.Tool != tool {
			return nudge, false, nil
		}
		var p T
		if err := json.Unmarshal(out.Args, &p); err != nil {
			return "", false, fmt.Errorf("%s arguments: %w", tool, err)
		}
		return done(ctx, p)
	}
}

// talk runs turns from input until handle says the stage's work is done.
// Questions and extension requests are answered here, for every stage.
func (c *conversation) talk(ctx context.Context, input string, handle handler) error {
	nudges, proseQuestions := 0, 0
	for turn := 0; turn < c.e.cfg.MaxTurns; turn++ {
		if id := c.record(ctx, agent.RoleUser, input, nil); turn == 0 {
			c.kickoff(ctx, id)
		}
		out, err := c.agent.RunTurn(ctx, input)
		c.saveNotes(ctx)
		c.recordUsage(ctx, out.Usage)
		if errors.Is(err, tools.ErrAborted) && c.wf.ID != "" {
			// "Abort all" at a confirmation stops the workflow as the
			// user's stop does: the run's context ends, work is kept.
			if serr := c.e.Stop(context.WithoutCancel(ctx), c.wf.ID, "aborted by the user at a confirmation"); serr != nil {
				return errors.Join(err, serr)
			}
		}
		if err != nil {
			return err
		}
		switch out.Kind {
		case agent.OutcomeTerminal:
			c.record(ctx, agent.RoleAssistant, "", map[string]any{"tool": out.Tool, "args": out.Args})
			var done bool
			switch out.Tool {
			case terminal.AskQuestions:
				input, err = c.e.askQuestions(ctx, c.wf, out.Args)
			case terminal.RequestExtension:
				input, err = c.e.extend(ctx, c.wf, c.pulse, out.Args)
			default:
				input, done, err = handle(ctx, out)
			}
			if err != nil || done {
				return err
			}
		case agent.OutcomeText:
			c.record(ctx, agent.RoleAssistant, out.Text, nil)
			if asksInProse(out.Text) && proseQuestions < maxProseQuestions {
				proseQuestions++
				input = c.questionRule()
				c.e.delta(Delta{WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, Withheld: true})
				continue
			}
			c.e.emit(Event{Kind: "message", WorkflowID: c.wf.ID, Stage: string(c.stage), PulseID: c.pulse, Text: out.Text})
			if input, err = c.e.reply(ctx, c.wf, out.Text); err != nil {
				return err
			}
			if input == "" {
				if nudges++; nudges > 3 {
					return &stageFailure{reason: fmt.Sprintf("the %s agent kept answering in prose instead of finishing with %s", c.role, c.terminals())}
				}
				input = "Continue with the task. End your turn by calling one of " + c.terminals() + "."
			}
		default:
			return &stageFailure{reason: out.Text}
		}
	}
	return &stageFailure{reason: fmt.Sprintf("the %s agent did not finish in %d turns", c.role, c.e.cfg.MaxTurns)}
}

func (c *conversation) terminals() string {
	spec, _ := agent.Spec(c.role)
	return strings.Join(spec.Terminal, ", ")
}
