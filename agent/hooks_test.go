package agent_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// turnModel answers each call with the next response (or error).
type turnModel struct {
	mu    sync.Mutex
	steps []func(agent.Request) (agent.Response, error)
	calls int
}

func (m *turnModel) Complete(_ context.Context, req agent.Request, _ func(string)) (agent.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	step := m.steps[min(m.calls, len(m.steps)-1)]
	m.calls++
	return step(req)
}

func text(s string) func(agent.Request) (agent.Response, error) {
	return func(agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{Content: s}, Usage: agent.Usage{PromptTokens: 7, CompletionTokens: 3}}, nil
	}
}

func call(name, args string) func(agent.Request) (agent.Response, error) {
	return func(agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{ToolCalls: []agent.ToolCall{{ID: "c1", Name: name, Args: json.RawMessage(args)}}}}, nil
	}
}

func fail(msg string) func(agent.Request) (agent.Response, error) {
	return func(agent.Request) (agent.Response, error) { return agent.Response{}, errors.New(msg) }
}

func TestHookEvents(t *testing.T) {
	// record logs every firing: event, context variables, stdin.
	const record = `printf '%s|%s|%s|%s|%s ' "$AUTARCH_EVENT" "$AUTARCH_AGENT" "$AUTARCH_WORKFLOW" "$AUTARCH_TOOL" "$AUTARCH_SESSION" >> "$LOG"; cat >> "$LOG"; echo >> "$LOG"`
	tests := []struct {
		name  string
		event string
		// command replaces record for the event's hook.
		command string
		steps   []func(agent.Request) (agent.Response, error)
		turns   int
		end     bool
		// fired are substrings of the log lines of the event, in order.
		fired []string
		err   string
		calls int // model calls made (-1: do not check)
		// warning is what failed hooks reported, joined by |.
		warning string
		// role is the agent's (default discussion); cfg adjusts its Config.
		role string
		cfg  func(*agent.Config)
	}{
		{name: "session_start once per session", event: tools.EventSessionStart, steps: []func(agent.Request) (agent.Response, error){text("a"), text("b")}, turns: 2,
			fired: []string{"session_start|discussion|wf-1||sess-1 "}, calls: 2},
		{name: "session_end after a text turn only when ended", event: tools.EventSessionEnd, steps: []func(agent.Request) (agent.Response, error){text("a")}, end: true,
			fired: []string{`session_end|discussion|wf-1||sess-1 {"event":"session_end"`}, calls: 1},
		{name: "session_end not fired while the conversation goes on", event: tools.EventSessionEnd, steps: []func(agent.Request) (agent.Response, error){text("a")}, calls: 1},
		{name: "pre_llm_call sees each call", event: tools.EventPreLLMCall, steps: []func(agent.Request) (agent.Response, error){call("read_file", `{"path": "main.go", "reason": "r"}`), text("done")},
			fired: []string{`"iteration":1`, `"iteration":2`}, calls: 2},
		{name: "pre_llm_call blocks with its reason", event: tools.EventPreLLMCall, command: `echo "over the office budget" >&2; exit 2`,
			steps: []func(agent.Request) (agent.Response, error){text("never")}, err: "blocked by a pre_llm_call hook: over the office budget", calls: 0},
		{name: "post_llm_call sees usage", event: tools.EventPostLLMCall, steps: []func(agent.Request) (agent.Response, error){text("a")},
			fired: []string{`"usage":{"prompt_tokens":7,"completion_tokens":3}`}, calls: 1},
		{name: "on_error on a model error", event: tools.EventError, steps: []func(agent.Request) (agent.Response, error){fail("upstream exploded")},
			fired: []string{`on_error|discussion|wf-1||sess-1 {"event":"on_error","path":"","payload":{"error":"model call: upstream exploded"`}, err: "upstream exploded", calls: -1},
		{name: "on_error on a tool error", event: tools.EventError, steps: []func(agent.Request) (agent.Response, error){call("read_file", `{"path": "missing.go", "reason": "r"}`), text("sorry")},
			fired: []string{"on_error|discussion|wf-1|read_file|sess-1 "}, calls: 2},
		{name: "pre_tool_use before each tool call", event: tools.EventPreToolUse, steps: []func(agent.Request) (agent.Response, error){call("read_file", `{"path": "main.go", "reason": "r"}`), text("done")},
			fired: []string{`pre_tool_use|discussion|wf-1|read_file|sess-1 {"event":"pre_tool_use","path":"main.go","payload":{"path":"main.go","reason":"r"}`}, calls: 2},
		{name: "post_tool_use sees the result", event: tools.EventPostToolUse, steps: []func(agent.Request) (agent.Response, error){call("read_file", `{"path": "main.go", "reason": "r"}`), text("done")},
			fired: []string{`post_tool_use|discussion|wf-1|read_file|sess-1 {"event":"post_tool_use","path":"main.go","payload":{"args":{"path":"main.go","reason":"r"},"result":`}, calls: 2},
		{name: "budget_warning at 80% of the budget", event: tools.EventBudgetWarning, steps: []func(agent.Request) (agent.Response, error){text("a")}, calls: 1,
			cfg: func(c *agent.Config) {
				c.Meter, c.Pricing = agent.NewMeter(0.8), agent.Pricing{PromptPerMillion: 100000} // 7 prompt tokens: $0.70 of $0.80
			},
			fired: []string{`budget_warning|discussion|wf-1||sess-1 {"event":"budget_warning","path":"","payload":{"cost":0.7`}},
		{name: "context_compress when the transcript is compacted", event: tools.EventContextCompress, steps: []func(agent.Request) (agent.Response, error){text("a")}, calls: 1,
			cfg:   func(c *agent.Config) { c.ContextWindow = 100 },
			fired: []string{`context_compress|discussion|wf-1||sess-1 {"event":"context_compress","path":"","payload":{"messages":1,"role":"discussion"}`}},
		{name: "agent_complete on an accepted terminal tool", event: tools.EventAgentComplete, role: agent.Research, calls: 1,
			steps: []func(agent.Request) (agent.Response, error){call("request_extension", `{"reason": "r", "completed": ["a"], "remaining": ["b"]}`)},
			fired: []string{`agent_complete|research|wf-1|request_extension|sess-1 {"event":"agent_complete"`}},
		{name: "a sub-agent inherits the hooks as its own session", event: tools.EventSessionStart, role: agent.Pulsing, calls: 3,
			steps: []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"agent_type": "explore", "task": "t", "reason": "r"}`), text("found"), text("done")},
			fired: []string{"session_start|pulsing|wf-1||sess-1 ", "session_start|subagent-explore|wf-1||"}},
		{name: "a failing notification hook does not stop the turn", event: tools.EventPostLLMCall, command: "echo lint broke; exit 1", steps: []func(agent.Request) (agent.Response, error){text("fine")}, calls: 1,
			warning: "[Hook h: FAILED (exit 1)]\nlint broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mainGoDir(t)
			logFile := filepath.Join(t.TempDir(), "hooks.log")
			t.Setenv("LOG", logFile)
			command := record
			if tt.command != "" {
				command = tt.command
			}
			hooks, err := tools.NewHooks(dir, []tools.Hook{{Name: "h", Event: tt.event, Command: command}})
			if err != nil {
				t.Fatal(err)
			}
			role := cmp.Or(tt.role, agent.Discussion)
			engine, sess := roleTools(t, role, dir, true, hooks)
			model := &turnModel{steps: tt.steps}
			var mu sync.Mutex
			var warnings []string
			cfg := agent.Config{Role: role, Model: model, Engine: engine,
				Session: sess, Workflow: "wf-1", SessionID: "sess-1", Events: func(e agent.Event) {
					if e.Kind == "warning" {
						mu.Lock()
						warnings = append(warnings, e.Text)
						mu.Unlock()
					}
				}}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			a, err := agent.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var runErr error
			for range max(tt.turns, 1) {
				if _, runErr = a.RunTurn(t.Context(), "go"); runErr != nil {
					break
				}
			}
			if tt.end {
				a.End(t.Context())
				a.End(t.Context())
			}
			if tt.err == "" && runErr != nil || tt.err != "" && (runErr == nil || !strings.Contains(runErr.Error(), tt.err)) {
				t.Fatalf("RunTurn error = %v, want %q", runErr, tt.err)
			}
			if tt.calls >= 0 && model.calls != tt.calls {
				t.Errorf("model calls = %d, want %d", model.calls, tt.calls)
			}
			data, _ := os.ReadFile(logFile)
			var lines []string
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if l != "" {
					lines = append(lines, l)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(warnings, "|") != tt.warning {
				t.Errorf("warnings = %q, want %q", warnings, tt.warning)
			}
			if tt.command != "" {
				return
			}
			if len(lines) != len(tt.fired) {
				t.Fatalf("fired %d times, want %d:\n%s", len(lines), len(tt.fired), data)
			}
			for i, want := range tt.fired {
				if !strings.Contains(lines[i], want) {
					t.Errorf("firing %d = %s\nwant it to contain %s", i, lines[i], want)
				}
			}
		})
	}
}

// The agent reports each hook that ran as a "hook" event whose text is
// the spec's human-log line (001-78).
func TestHookRunsAreEvents(t *testing.T) {
	dir := mainGoDir(t)
	hooks, err := tools.NewHooks(dir, []tools.Hook{{Name: "python-lint", Event: tools.EventPostToolUse, Command: "echo F841; exit 1"}})
	if err != nil {
		t.Fatal(err)
	}
	engine, sess := roleTools(t, agent.Discussion, dir, true, hooks)
	var mu sync.Mutex
	var got []agent.Event
	a, err := agent.New(agent.Config{Role: agent.Discussion, Model: &turnModel{steps: []func(agent.Request) (agent.Response, error){call("read_file", `{"path": "main.go", "reason": "r"}`), text("done")}},
		Engine: engine, Session: sess, Events: func(e agent.Event) {
			if e.Kind == "hook" {
				mu.Lock()
				got = append(got, e)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunTurn(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Text != "🔍 Hook python-lint: ⚠️ exit 1" || got[0].Tool != "read_file" || !got[0].Failed {
		t.Errorf("hook events = %+v", got)
	}
}
