package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// TestHostedTurn: what a run hosting agents (a swarm) asks of the loop: a
// conversation resumed between a call and its result runs the call
// first; a role the caller defines and its own call runner; hosted turns
// leave session_start and session_end to the run.
func TestHostedTurn(t *testing.T) {
	pending := []agent.Message{{Role: agent.RoleUser, Content: "go"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path": "main.go", "reason": "r"}`)}}}}
	lastIsResult := func(req agent.Request) (agent.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role != agent.RoleTool || last.ToolCallID != "c1" || !strings.Contains(last.Content, "package main") {
			return agent.Response{}, errors.New("the call cut from its result was not run before the model call")
		}
		return agent.Response{Message: agent.Message{Content: "read it"}}, nil
	}
	spend := func(req agent.Request) (agent.Response, error) {
		return agent.Response{Message: agent.Message{ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Args: json.RawMessage(`{"path": "main.go", "reason": "r"}`)}}},
			Usage: agent.Usage{PromptTokens: 15, CompletionTokens: 5}}, nil
	}
	tests := []struct {
		name  string
		steps []func(agent.Request) (agent.Response, error)
		input string
		cfg   func(*agent.Config)
		kind  agent.OutcomeKind
		calls int
		// check looks at the transcript and the hooks' log.
		check func(t *testing.T, transcript []agent.Message, log string)
	}{
		{name: "a resumed conversation runs the calls cut from their results first", steps: []func(agent.Request) (agent.Response, error){lastIsResult},
			cfg: func(c *agent.Config) { c.History = pending }, kind: agent.OutcomeText, calls: 1,
			check: func(t *testing.T, tr []agent.Message, _ string) {
				if len(tr) != 4 || tr[2].Role != agent.RoleTool || tr[3].Content != "read it" {
					t.Errorf("transcript = %+v, want the result of c1, then the answer", tr)
				}
			}},
		{name: "a hosted role of its caller, calls run by its caller, no session hooks", input: "go", steps: []func(agent.Request) (agent.Response, error){
			func(req agent.Request) (agent.Response, error) {
				if req.Messages[0].Content != "You are the critic." {
					return agent.Response{}, errors.New("system prompt " + req.Messages[0].Content)
				}
				return spend(req)
			}, text("done")},
			cfg: func(c *agent.Config) {
				c.Spec, c.Hosted = &agent.RoleSpec{Name: "critic", Prompt: "You are the critic."}, true
				c.Call = func(_ context.Context, c agent.ToolCall) (tools.Result, error) {
					return tools.Result{Output: `{"answered": "by the caller"}`}, nil
				}
			}, kind: agent.OutcomeText, calls: 2,
			check: func(t *testing.T, tr []agent.Message, log string) {
				if len(tr) != 4 || tr[2].Content != `{"answered": "by the caller"}` {
					t.Errorf("transcript = %+v, want the caller's result", tr)
				}
				if strings.Contains(log, "session_") || !strings.Contains(log, "pre_llm_call|critic") {
					t.Errorf("hooks fired: %s; want the model call hooks with the role critic, no session hook", log)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := mainGoDir(t)
			logFile := filepath.Join(t.TempDir(), "hooks.log")
			t.Setenv("LOG", logFile)
			var hs []tools.Hook
			for _, ev := range []string{tools.EventSessionStart, tools.EventSessionEnd, tools.EventPreLLMCall} {
				hs = append(hs, tools.Hook{Name: ev, Event: ev, Command: `printf '%s|%s\n' "$AUTARCH_EVENT" "$AUTARCH_AGENT" >> "$LOG"`})
			}
			hooks, err := tools.NewHooks(dir, hs)
			if err != nil {
				t.Fatal(err)
			}
			engine, sess := roleTools(t, agent.Discussion, dir, true, hooks)
			model := &turnModel{steps: tt.steps}
			cfg := agent.Config{Role: agent.Discussion, Model: model, Engine: engine, Session: sess}
			tt.cfg(&cfg)
			a, err := agent.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			out, err := a.RunTurn(t.Context(), tt.input)
			if err != nil || out.Kind != tt.kind {
				t.Fatalf("RunTurn = %+v, %v; want %s", out, err, tt.kind)
			}
			if model.calls != tt.calls {
				t.Errorf("model calls = %d, want %d", model.calls, tt.calls)
			}
			log, _ := os.ReadFile(logFile)
			tt.check(t, a.Transcript(), string(log))
		})
	}
}
