package agent_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp"
	"github.com/autarch-dev/autarch/tools/mcp/mcptest"
)

// TestSubagentsGetReadOnlyMCPTools (001-68): a sub-agent gets the MCP
// tools the read-only roles get — annotated readOnlyHint, or marked
// read-only in the user's mcp.json — and never the others, which stay
// with the pulse that dispatched it.
func TestSubagentsGetReadOnlyMCPTools(t *testing.T) {
	bin := mcptest.Server(t, "mcp-server-everything")
	tests := []struct {
		name       string
		agentType  string
		marks      []string // the user's readOnlyTools
		wantToggle bool     // toggle-simulated-logging has no readOnlyHint; echo has one
	}{
		{"explore, server's hints", agent.SubagentExplore, nil, false},
		{"review, marked by the user", agent.SubagentReview, []string{"toggle-simulated-logging"}, true},
		{"test, server's hints", agent.SubagentTest, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := mcptest.UserFile(t, map[string]tools.MCPServer{"ev": {Command: bin, ReadOnlyTools: tt.marks}})
			m, err := mcp.NewManager(mcp.Options{UserFile: file, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			extra, errs := m.Tools(t.Context(), agent.Pulsing)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			reg, err := agent.Registry(agent.Pulsing, tools.Deps{}, extra...)
			if err != nil {
				t.Fatal(err)
			}
			if !reg.Has("mcp_ev_toggle_simulated_logging") || !reg.Has("mcp_ev_echo") {
				t.Fatalf("the pulse lacks the server's tools: %v", reg.Names())
			}
			sess, err := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Role: agent.Pulsing, Mode: tools.ModeYolo})
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			var offered []string
			r := &resultOf{}
			model := &turnModel{steps: []func(agent.Request) (agent.Response, error){
				call("dispatch_subagent", `{"agent_type": "`+tt.agentType+`", "task": "ask the server", "reason": "r"}`),
				func(req agent.Request) (agent.Response, error) {
					for _, f := range req.Tools {
						offered = append(offered, f.Function.Name)
					}
					return call("mcp_ev_echo", `{"message": "from the sub-agent", "reason": "sub: ask"}`)(req)
				},
				r.then(text("the server echoed")),
				r.then(text("done")),
			}}
			a, err := agent.New(agent.Config{Role: agent.Pulsing, Model: model, Engine: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), Session: sess})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.RunTurn(t.Context(), "go"); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(offered, "mcp_ev_echo") || slices.Contains(offered, "mcp_ev_toggle_simulated_logging") != tt.wantToggle {
				t.Errorf("the %s sub-agent was offered %v (echo wanted, toggle wanted: %v)", tt.agentType, offered, tt.wantToggle)
			}
			if len(r.last) != 2 || !strings.Contains(r.last[0], "Echo: from the sub-agent") || !strings.Contains(r.last[1], "the server echoed") {
				t.Errorf("results = %q, want the server's echo, then the summary", r.last)
			}
		})
	}
}
