package orchestrate

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp"
	"github.com/autarch-dev/autarch/tools/mcp/mcptest"
)

// TestSwarmAgentsGetReadOnlyMCPTools (001-68): a swarm's agents are
// offered the MCP servers' tools by the read-only roles' rule (the
// scenario checks what the model is offered and that a call is answered
// by the real server).
func TestSwarmAgentsGetReadOnlyMCPTools(t *testing.T) {
	file := mcptest.UserFile(t, map[string]tools.MCPServer{"ev": {Command: mcptest.Server(t, "mcp-server-everything")}})
	m, err := mcp.NewManager(mcp.Options{UserFile: file, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	w := newWorld(t, "mcp")
	serverTools := func(ctx context.Context, role string) []tools.Tool {
		ts, errs := m.Tools(ctx, role)
		if len(errs) > 0 {
			t.Error(errs)
		}
		return ts
	}
	o := w.newOrchestrator(Config{Models: map[string]agent.Model{"explorer": w.model("explorer")}, Tools: serverTools,
		Arbiter: func(string) Arbiter { return TerminalArbiter{} }})
	runToDone(t, o, Options{Task: "ask the server", Agents: []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}, Rounds: 1, Arbiter: "human"})
	if errs := w.models["explorer"].Errors(); len(errs) > 0 {
		t.Errorf("the explorer's model saw: %v", errs)
	}
	if n := w.models["explorer"].Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
}
