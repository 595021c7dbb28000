package orchestrate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
)

// readThenDone is a model that reads main.go, then ends its turn: an
// agent's turn of two model calls and one tool call.
type readThenDone struct{}

func (readThenDone) Complete(_ context.Context, req agent.Request, _ func(string)) (agent.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == agent.RoleTool {
		return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, Content: "done"}, Usage: agent.Usage{PromptTokens: 10, CompletionTokens: 2}}, nil
	}
	args, _ := json.Marshal(map[string]string{"path": "main.go", "reason": "look"})
	return agent.Response{Message: agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "fs_read", Args: args}}},
		Usage: agent.Usage{PromptTokens: 10, CompletionTokens: 2}}, nil
}

// BenchmarkRound: one swarm of one round, two agents (each reads a file
// and ends its turn), no proposal: what the orchestrator, the agent loop
// and the engine cost around the model.
func BenchmarkRound(b *testing.B) {
	w := newWorld(b, "")
	o := w.newOrchestrator(Config{Model: readThenDone{}, DefaultModel: "m", Arbiter: func(string) Arbiter { return NewInbox() }})
	defer o.Close()
	agents := []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}, {Name: "critic", Role: RoleCritic}}
	b.ResetTimer()
	for b.Loop() {
		runToDone(b, o, Options{Task: "look", Agents: agents, Rounds: 1, Arbiter: "human"})
	}
}
