package orchestrate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// roundMarker starts the user message that opens an agent's turn of a
// round: a resumed turn finds where it started by it.
func roundMarker(round int) string { return fmt.Sprintf("[swarm round %d]", round) }

// turn runs one agent's turn of the round: the model ⇄ tools loop, its
// conversation saved after every message, continued from the last saved
// message when the turn was cut.
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
	add := func(m agent.Message) error {
		msgs = append(msgs, m)
		return r.s.saveConversation(a.Name, msgs)
	}
	if start < 0 {
		input, err := r.roundInput(ctx, a)
		if err != nil {
			return err
		}
		start = len(msgs)
		if err := add(agent.Message{Role: agent.RoleUser, Content: input}); err != nil {
			return err
		}
	}
	model, modelName := r.o.modelFor(a)
	if model == nil {
		return fmt.Errorf("agent %s: no model configured (set AUTARCH_MODEL or give --agents %s=MODEL)", a.Name, a.Name)
	}
	fns := r.eng.Schemas(r.st.ReadOnly)
	envelope := ""
	if a.Envelope {
		envelope = envelopeInstructions(fns)
	}
	system := agent.Message{Role: agent.RoleSystem, Content: systemPrompt(a, r.st.ReadOnly, envelope)}
	iterations := 0
	for _, m := range msgs[start:] {
		if m.Role == agent.RoleAssistant {
			iterations++
		}
	}
	for {
		last := msgs[len(msgs)-1]
		if last.Role == agent.RoleAssistant {
			missing := unanswered(last, msgs)
			if len(last.ToolCalls) == 0 {
				return r.endTurn(ctx, a, last.Content)
			}
			for _, c := range missing {
				res := r.callTool(ctx, a, c, fns)
				if err := ctx.Err(); err != nil {
					return err
				}
				if err := add(agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: res}); err != nil {
					return err
				}
			}
		}
		if iterations >= r.o.cfg.MaxIterations {
			r.emit(editor.SwarmEvent{Kind: "text", Agent: a.Name, Failed: true,
				Text: fmt.Sprintf("%s's turn ends: %d model calls, the limit of a turn", a.Name, iterations)})
			return nil
		}
		if r.budgetSpent() {
			return fmt.Errorf("agent %s: %w", a.Name, errBudget) // spent by the others' calls
		}
		shown := recent(msgs, r.st.Round)
		req := agent.Request{Model: modelName, Messages: append([]agent.Message{system}, shown...)}
		if a.Envelope {
			req.Messages = append([]agent.Message{system}, asText(shown)...)
		} else {
			req.Tools = fns
		}
		resp, err := complete(ctx, r.o.cfg.Hooks, model, req, agentRole(a), iterations+1, r.warn)
		if err != nil {
			return fmt.Errorf("agent %s: model call: %w", a.Name, err)
		}
		iterations++
		msg := resp.Message
		msg.Role = agent.RoleAssistant
		if a.Envelope {
			if calls, before, _, ok := agent.ParseEnvelope(msg.Content); ok {
				msg.ToolCalls, msg.Content = calls, strings.TrimSpace(before)
			}
		}
		if msg.Content != "" {
			r.emit(editor.SwarmEvent{Kind: "text", Agent: a.Name, Text: msg.Content})
		}
		if err := add(msg); err != nil {
			return err
		}
		if err := r.spend(resp.Usage); err != nil {
			return err
		}
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

// unanswered are the calls of an assistant message (the last one) without
// a tool result after it.
func unanswered(last agent.Message, msgs []agent.Message) []agent.ToolCall {
	answered := map[string]bool{}
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == agent.RoleTool; i-- {
		answered[msgs[i].ToolCallID] = true
	}
	var out []agent.ToolCall
	for _, c := range last.ToolCalls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// callTool runs one of the agent's calls through the engine; the result
// is what the model reads (its mistakes included).
func (r *run) callTool(ctx context.Context, a editor.SwarmAgent, c agent.ToolCall, fns []tools.FunctionSchema) string {
	r.emit(editor.SwarmEvent{Kind: "tool_call", Agent: a.Name, Tool: c.Name, Text: clip(string(c.Args), 300)})
	if ok, names := offered(c.Name, fns); !ok {
		msg := fmt.Sprintf("unknown tool %q: the swarm's tools are %s", c.Name, names)
		if r.st.ReadOnly && isWrite(c.Name) {
			msg = "fs_write is not available in a read-only proposal round: put the change in your improvement proposal instead"
		}
		b, _ := json.Marshal(map[string]string{"error": msg})
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: true, Text: msg})
		return string(b)
	}
	args := c.Args
	if len(args) == 0 || !json.Valid(args) {
		b, _ := json.Marshal(map[string]string{"error": "the arguments are not a JSON object: give {\"name\": …, \"args\": {…}}"})
		return string(b)
	}
	res, err := r.eng.Call(ctx, a.Name, c.Name, args)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"error": "the swarm engine failed: " + err.Error() + "; try again later"})
		r.emit(editor.SwarmEvent{Kind: "tool_result", Agent: a.Name, Tool: c.Name, Failed: true, Text: err.Error()})
		return string(b)
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
	return string(res)
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

// spend counts a model call's tokens; over the run's budget it ends the
// turn (the answer is saved: a resumed turn runs its tool calls). Turns
// running at once check the budget before each model call, so a run
// overshoots its budget by at most the calls in flight when it was spent.
func (r *run) spend(u agent.Usage) error {
	n := u.PromptTokens + u.CompletionTokens
	over := false
	if err := r.change(func(st *State) {
		r.spent += n
		st.Tokens += n
		over = r.spent >= r.o.cfg.TokenBudget
	}); err != nil {
		return err
	}
	if over {
		return fmt.Errorf("agent turn: %w", errBudget)
	}
	return nil
}

// budgetSpent reports whether the run's token budget is spent.
func (r *run) budgetSpent() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent >= r.o.cfg.TokenBudget
}

// agentRole is an agent's role as the model call hooks hear it.
func agentRole(a editor.SwarmAgent) string {
	if a.Role == "" {
		return "swarm"
	}
	return a.Role
}
