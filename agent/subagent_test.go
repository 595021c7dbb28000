package agent_test

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

func TestDispatchSchemaPerRole(t *testing.T) {
	tests := []struct {
		role  string
		types []string // nil: not offered
	}{
		{agent.Pulsing, []string{"explore", "test", "review"}},
		{agent.Research, []string{"explore", "review"}},
		{agent.Discussion, nil}, {agent.Scoping, nil}, {agent.Plan, nil}, {agent.Preflight, nil}, {agent.Review, nil},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			reg, err := agent.Registry(tt.role, tools.Deps{})
			if err != nil {
				t.Fatal(err)
			}
			d, ok := reg.Get("dispatch_subagent")
			if ok != (tt.types != nil) {
				t.Fatalf("dispatch_subagent offered = %v, want %v", ok, tt.types != nil)
			}
			if !ok {
				return
			}
			var s struct {
				Properties map[string]struct {
					Enum []string `json:"enum"`
				} `json:"properties"`
				Required []string `json:"required"`
			}
			if err := json.Unmarshal(d.Schema(), &s); err != nil {
				t.Fatal(err)
			}
			if got := s.Properties["agent_type"].Enum; !slices.Equal(got, tt.types) {
				t.Errorf("agent_type enum = %v, want %v", got, tt.types)
			}
			for _, p := range []string{"task", "agent_type", "context", "reason"} {
				if _, ok := s.Properties[p]; !ok {
					t.Errorf("parameter %s missing: %s", p, d.Schema())
				}
			}
			if slices.Contains(s.Required, "context") || !slices.Contains(s.Required, "task") || !slices.Contains(s.Required, "agent_type") {
				t.Errorf("required = %v, want task and agent_type, not context", s.Required)
			}
		})
	}
}

// resultOf records the last tool result the model received.
type resultOf struct {
	mu   sync.Mutex
	last []string
}

func (r *resultOf) then(next func(agent.Request) (agent.Response, error)) func(agent.Request) (agent.Response, error) {
	return func(req agent.Request) (agent.Response, error) {
		r.mu.Lock()
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == agent.RoleTool {
				r.last = append(r.last, req.Messages[i].Content)
				break
			}
		}
		r.mu.Unlock()
		return next(req)
	}
}

func TestDispatchRefusals(t *testing.T) {
	off := false
	tests := []struct {
		name    string
		role    string
		config  tools.Config
		steps   func(r *resultOf) []func(agent.Request) (agent.Response, error)
		calls   int
		results []string // substrings of the results the model received, in order
	}{
		{name: "research may not dispatch test", role: agent.Research, calls: 2, results: []string{`agent_type \"test\" is not available to the research agent, which is read-only: use explore or review`},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"agent_type": "test", "task": "run the tests", "reason": "r"}`), r.then(text("ok"))}
			}},
		{name: "unknown type", role: agent.Pulsing, calls: 2, results: []string{`Unknown agent_type \"deploy\": use explore, test, review`},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"agent_type": "deploy", "task": "ship it", "reason": "r"}`), r.then(text("ok"))}
			}},
		{name: "test sub-agent runs only safe or dev commands", role: agent.Pulsing, calls: 5,
			results: []string{`"stdout":"main.go\n"`, "Command classified as 'dangerous' and allowed_only=True", `"summary":"rm was refused"`},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){
					call("dispatch_subagent", `{"agent_type": "test", "task": "clean up", "reason": "r"}`),
					call("shell", `{"command": "ls", "reason": "sub: look"}`),
					r.then(call("shell", `{"command": "rm main.go", "reason": "sub: clean"}`)),
					r.then(text("rm was refused")),
					r.then(text("ok")),
				}
			}},
		{name: "empty task", role: agent.Pulsing, calls: 2, results: []string{"task is required: describe what the sub-agent must do"},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"agent_type": "explore", "task": "  ", "reason": "r"}`), r.then(text("ok"))}
			}},
		{name: "missing agent_type", role: agent.Research, calls: 2, results: []string{"Invalid arguments"},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"task": "look", "reason": "r"}`), r.then(text("ok"))}
			}},
		{name: "no test sub-agent when commands are off", role: agent.Pulsing, config: tools.Config{Commands: tools.CommandsConfig{Enabled: &off}}, calls: 2,
			results: []string{"the test sub-agent cannot run: commands are turned off (commands.enabled is false"},
			steps: func(r *resultOf) []func(agent.Request) (agent.Response, error) {
				return []func(agent.Request) (agent.Response, error){call("dispatch_subagent", `{"agent_type": "test", "task": "run the tests", "reason": "r"}`), r.then(text("ok"))}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			reg, err := agent.Registry(tt.role, tools.Deps{})
			if err == nil {
				reg, err = tt.config.Apply(reg, tt.role)
			}
			if err != nil {
				t.Fatal(err)
			}
			sess, err := tools.NewSession(tools.SessionConfig{Root: dir, Role: tt.role, Mode: tools.ModeYolo})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			r := &resultOf{}
			model := &turnModel{steps: tt.steps(r)}
			a, err := agent.New(agent.Config{Role: tt.role, Model: model, Engine: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), Session: sess})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.RunTurn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			if model.calls != tt.calls {
				t.Errorf("model calls = %d, want %d", model.calls, tt.calls)
			}
			if len(r.last) != len(tt.results) {
				t.Fatalf("results = %q, want %d", r.last, len(tt.results))
			}
			for i, want := range tt.results {
				if !strings.Contains(r.last[i], want) {
					t.Errorf("result %d = %s\nwant it to contain %s", i, r.last[i], want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "main.go")); err != nil {
				t.Errorf("main.go: %v", err)
			}
		})
	}
}

// Outside an agent's turn (autarch tool) there is no parent to inherit
// from: the call is refused with a result that says so.
func TestDispatchOutsideAgent(t *testing.T) {
	engine, sess := roleTools(t, agent.Pulsing, t.TempDir(), false, nil)
	res, err := engine.Call(t.Context(), sess, "dispatch_subagent", json.RawMessage(`{"agent_type": "explore", "task": "t", "reason": "r"}`))
	if err != nil || !res.Failed || !strings.Contains(res.Output, "dispatch_subagent runs only inside an agent's turn") {
		t.Errorf("result = %+v, %v", res, err)
	}
}
