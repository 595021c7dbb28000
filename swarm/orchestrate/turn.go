package orchestrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// roundMarker starts the user message that opens an agent's turn of a
// round: a resumed turn finds where it started by it.
func roundMarker(round int) string { return fmt.Sprintf("[swarm round %d]", round) }

// turn runs one agent's turn of the round on the agent loop
// (agent.Agent), as a workflow's pulse runs: the same model call hooks,
// secret filter, budget meter and streaming; the swarm's tools offered
// from the swarm's engine and its calls answered by it (callTool). The
// conversation is saved after every message and continued from the last
// one saved when the turn was cut (calls without results run first).
func (r *run) turn(ctx context.Context, a editor.SwarmAgent) error {
	msgs, err := r.s.loadConversation(a.Name)
	if err != nil {
		return err
	}
	marker := roundMarker(r.st.Round)
	start := -1
	for i, m := range msgs {
		if m.Role == agent.RoleUser && strings.HasPrefix(m.Content, marker) {
			start = i
		}
	}
	if start < 0 {
		input, err := r.roundInput(ctx, a)
		if err != nil {
			return err
		}
		start = len(msgs)
		msgs = append(msgs, agent.Message{Role: agent.RoleUser, Content: input})
		if err := r.s.saveConversation(a.Name, msgs); err != nil {
			return err
		}
	}
	if last := msgs[len(msgs)-1]; last.Role == agent.RoleAssistant && len(last.ToolCalls) == 0 {
		return r.endTurn(ctx, a, last.Content) // ended before a crash
	}
	model, modelName := r.o.modelFor(a)
	if model == nil {
		return fmt.Errorf("agent %s: no model configured (set AUTARCH_MODEL or give --agents %s=MODEL)", a.Name, a.Name)
	}
	model = metered{model, r.meter}
	if a.Envelope {
		model = textModel{model}
	}
	eng, sess, err := r.eng.Agent(a.Name, r.st.ReadOnly)
	if err != nil {
		return fmt.Errorf("agent %s: the swarm's tools: %w", a.Name, err)
	}
	iterations := 0
	for _, m := range msgs[start:] {
		if m.Role == agent.RoleAssistant {
			iterations++
		}
	}
	if iterations >= r.o.cfg.MaxIterations {
		r.iterationLimit(a, iterations)
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var saveErr error // the conversation or the state could not be saved: the turn stops
	ag, err := agent.New(agent.Config{
		Spec:  &agent.RoleSpec{Name: agentRole(a), Prompt: systemPrompt(a, r.st.ReadOnly)},
		Model: model, ModelName: modelName, Engine: eng, Session: sess,
		MaxIterations: r.o.cfg.MaxIterations - iterations, JSONEnvelope: a.Envelope, Hosted: true, InOrder: true,
		SessionID: r.st.ID + "-" + a.Name, History: recent(msgs, r.st.Round),
		Events: func(e agent.Event) { r.agentEvent(a, e) },
		Call: func(ctx context.Context, c agent.ToolCall) (tools.Result, error) {
			out, failed := r.callTool(ctx, a, c)
			return tools.Result{Output: out, Failed: failed}, nil
		},
		OnMessage: func(m agent.Message) {
			msgs = append(msgs, m)
			if saveErr = r.s.saveConversation(a.Name, msgs); saveErr != nil {
				cancel()
				return
			}
			if m.Role != agent.RoleAssistant {
				return
			}
			if m.Content != "" {
				r.emit(editor.SwarmEvent{Kind: "text", Agent: a.Name, Text: m.Content})
			}
			if saveErr = r.change(func(st *State) { st.Tokens = r.tokens0 + r.tokens() }); saveErr != nil {
				cancel()
			}
		},
	})
	if err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	out, err := ag.RunTurn(ctx, "")
	if saveErr != nil {
		return fmt.Errorf("agent %s: %w", a.Name, saveErr)
	}
	if limit := (*kernel.LimitError)(nil); errors.As(err, &limit) {
		return fmt.Errorf("agent %s: %v: %w", a.Name, limit, errBudget)
	}
	if err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	switch out.Kind {
	case agent.OutcomeFailed:
		r.iterationLimit(a, iterations+out.Iterations)
		return nil
	}
	return r.endTurn(ctx, a, out.Text)
}

// iterationLimit tells that an agent's turn ended at the model calls a
// turn may make.
func (r *run) iterationLimit(a editor.SwarmAgent, calls int) {
	r.emit(editor.SwarmEvent{Kind: "text", Agent: a.Name, Failed: true,
		Text: fmt.Sprintf("%s's turn ends: %d model calls, the limit of a turn", a.Name, calls)})
}

// agentEvent tells what the agent loop reports of an agent's turn that
// the swarm does not tell itself: the calls (their results, the rate
// limits and the agent's text are told by callTool and the turn), retries,
// compactions and failing hooks.
func (r *run) agentEvent(a editor.SwarmAgent, e agent.Event) {
	switch e.Kind {
	case "tool_call":
		r.emit(editor.SwarmEvent{Kind: "tool_call", Agent: a.Name, Tool: e.Tool, Text: clip(string(e.Args), 300)})
	case "retry", "compaction":
		r.emit(editor.SwarmEvent{Kind: e.Kind, Agent: a.Name, Text: e.Text})
	case "hook": // the spec's line ("🔍 Hook NAME: ✅"), as a workflow's log shows it
		r.emit(editor.SwarmEvent{Kind: "hook", Agent: a.Name, Tool: e.Tool, Text: e.Text, Failed: e.Failed})
	case "warning":
		r.warn(a.Name + ": " + e.Text)
	}
}

// recent is what the model sees of an agent's conversation in round: the
// previous round and this one; earlier rounds live on in the shared
// context (the conversation file keeps them all).
func recent(msgs []agent.Message, round int) []agent.Message {
	if round <= 2 {
		return msgs
	}
	marker := roundMarker(round - 1)
	for i, m := range msgs {
		if m.Role == agent.RoleUser && strings.HasPrefix(m.Content, marker) {
			note := agent.Message{Role: agent.RoleUser, Content: fmt.Sprintf("(Rounds 1 to %d are left out: what you and the others found is in the shared context — ctx_keys, ctx_get.)", round-2)}
			return append([]agent.Message{note}, msgs[i:]...)
		}
	}
	return msgs
}

// asText is a conversation for a model without native tool calling: its
// calls written back as the JSON envelope, results as user messages.
func asText(msgs []agent.Message) []agent.Message {
	out := make([]agent.Message, 0, len(msgs))
	for _, m := range msgs {
		switch {
		case m.Role == agent.RoleAssistant && len(m.ToolCalls) > 0:
			type call struct {
				Name string          `json:"name"`
				Args json.RawMessage `json:"args"`
			}
			var env struct {
				ToolCalls []call `json:"tool_calls"`
			}
			for _, c := range m.ToolCalls {
				env.ToolCalls = append(env.ToolCalls, call{c.Name, c.Args})
			}
			b, _ := json.Marshal(env)
			out = append(out, agent.Message{Role: agent.RoleAssistant, Content: strings.TrimSpace(m.Content + "\n```json\n" + string(b) + "\n```")})
		case m.Role == agent.RoleTool:
			out = append(out, agent.Message{Role: agent.RoleUser, Content: "Tool result (" + m.ToolCallID + "):\n" + m.Content})
		default:
			out = append(out, m)
		}
	}
	return out
}

// callTool runs one of the agent's calls through the engine; the result
// is what the model reads (its mistakes included).
func (r *run) callTool(ctx context.Context, a editor.SwarmAgent, c agent.ToolCall) (result string, failed bool) {
	fns := r.eng.Schemas(r.st.ReadOnly)
	if ok, names := offered(c.Name, fns); !ok {
		msg := fmt.Sprintf("unknown tool %q: the swarm's tools are %s", c.Name, names)
		if r.st.ReadOnly && isWrite(c.Name) {
			msg = "fs_write is not available in a read-only proposal round: put the change in your improvement proposal instead"
		}
		b, _ := json.Marshal(map[string]string{"error": msg})
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: true, Text: msg})
		return string(b), true
	}
	args := c.Args
	if len(args) == 0 || !json.Valid(args) {
		msg := "the arguments are not a JSON object: give {\"name\": …, \"args\": {…}}"
		b, _ := json.Marshal(map[string]string{"error": msg})
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: true, Text: msg})
		return string(b), true
	}
	res, err := r.eng.Call(ctx, a.Name, c.Name, args)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": "the swarm engine failed: " + err.Error() + "; try again later"})
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: true, Text: err.Error()})
		return string(b), true
	}
	var limited struct {
		Error    string `json:"error"`
		ResetSec int    `json:"reset_sec"`
	}
	json.Unmarshal(res, &limited)
	switch {
	case limited.Error == "rate_limited":
		r.mu.Lock()
		r.st.RateLimits = append(r.st.RateLimits, editor.SwarmRateLimitHit{Agent: a.Name, Tool: c.Name, Round: r.st.Round, ResetSec: limited.ResetSec})
		r.mu.Unlock()
		r.emit(editor.SwarmEvent{Kind: "rate_limited", Agent: a.Name, Tool: c.Name, Failed: true, Text: string(res)})
	default:
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: limited.Error != "", Text: clip(string(res), 300)})
	}
	return string(res), limited.Error != ""
}

// roundInput opens an agent's turn: the round, the task, the shared
// context's keys and the arbiter's decisions on its last proposals.
func (r *run) roundInput(ctx context.Context, a editor.SwarmAgent) (string, error) {
	entries, err := r.eng.Context(ctx)
	if err != nil {
		return "", fmt.Errorf("read the shared context: %w", err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s Round %d of %d (phase %d).\nTask: %s\n", roundMarker(r.st.Round), r.st.Round, r.st.Rounds, r.st.Round, r.st.Task)
	if len(keys) > 0 {
		fmt.Fprintf(&b, "Shared context keys (read them with ctx_get): %s\n", strings.Join(keys, ", "))
	}
	for _, p := range r.st.Proposals {
		if p.Agent == a.Name && p.Round == r.st.Round-1 && p.Action != "" {
			state := "not applied (writes are not allowed in this swarm)"
			if p.Applied {
				state = "applied"
			}
			fmt.Fprintf(&b, "The arbiter decided your proposal for %s: %s, %s. Notes: %s\n", p.Path, p.Action, state, orNone(p.Notes))
		}
	}
	b.WriteString(r.gatesInput())
	return b.String(), nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// endTurn reads an improvement proposal from the agent's final text and
// shares it as a finding ("Agent.proposal").
func (r *run) endTurn(ctx context.Context, a editor.SwarmAgent, text string) error {
	var imp struct {
		Type  string            `json:"type"`
		Items []ImprovementItem `json:"items"`
	}
	if json.Unmarshal(trimJSON(text), &imp) != nil || imp.Type != "proposal" || len(imp.Items) == 0 {
		return nil
	}
	if r.improved(a.Name) {
		return nil // recorded before a crash
	}
	finding, _ := json.Marshal(map[string]any{"key": a.Name + ".proposal", "reason": "share my improvement proposal", "value": map[string]any{
		"ok": true, "task": "proposal", "data": imp.Items, "ts": now(), "agent": a.Name}})
	if _, err := r.eng.Call(ctx, a.Name, toolCtxPut, finding); err != nil {
		return fmt.Errorf("share %s's improvement proposal: %w", a.Name, err)
	}
	b, _ := json.Marshal(imp.Items)
	r.emit(editor.SwarmEvent{Kind: "improvement", Agent: a.Name, Text: string(b)})
	return r.change(func(st *State) {
		st.Improvements = append(st.Improvements, Improvement{Agent: a.Name, Round: st.Round, Items: imp.Items})
	})
}

// improved reports whether agent's improvement proposal of the round is
// recorded.
func (r *run) improved(agentName string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.st.Improvements {
		if p.Agent == agentName && p.Round == r.st.Round {
			return true
		}
	}
	return false
}

// tokens are the tokens this run's model calls spent.
func (r *run) tokens() int { return int(r.meter.Spent().Tokens()) }

// agentRole is an agent's role as the model call hooks hear it.
func agentRole(a editor.SwarmAgent) string {
	if a.Role == "" {
		return "swarm"
	}
	return a.Role
}
