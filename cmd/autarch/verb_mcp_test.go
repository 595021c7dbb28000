package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// everythingBin is the pinned server-everything of the repository's
// devDependencies (npm ci installs it).
func everythingBin(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "node_modules", ".bin", "mcp-server-everything"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `npm ci` at the repository root (it installs the pinned MCP test servers): %v", p, err)
	}
	return p
}

// userEverything configures server-everything as the user's server, in a
// user config dir and trust store of the test's own.
func userEverything(t *testing.T) {
	t.Helper()
	bin := everythingBin(t)
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("AUTARCH_TRUST_FILE", filepath.Join(t.TempDir(), "trusted.json"))
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	os.MkdirAll(filepath.Join(config, "autarch"), 0o755)
	if err := os.WriteFile(filepath.Join(config, "autarch", "mcp.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestMCPVerbs(t *testing.T) {
	userEverything(t)
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".autarch"), 0o755)
	os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{"mcpServers": {"planted": {"command": "false"}}}`), 0o600)
	os.WriteFile(filepath.Join(ws, ".autarch", "config.yaml"), []byte("workspace:\n  allow_delete: true\ncommands:\n  enabled: false\n"), 0o600)

	tests := []struct {
		name      string
		args      []string
		code      int
		out, not  []string
		errOutput string
	}{
		{name: "mcp list", args: []string{"mcp", "list", "--root", ws},
			out: []string{"everything (stdio, user): running", "  mcp_everything_echo (read-only)", "  mcp_everything_toggle_simulated_logging\n",
				"planted (repository): not started, the repository configuration is not trusted"}},
		{name: "tools of pulsing", args: []string{"tools", "--root", ws, "--agent", "pulsing"},
			out: []string{"## mcp_everything_echo", "## mcp_everything_toggle_simulated_logging"}, not: []string{"## shell", "planted", "## delete_file"},
			errOutput: "MCP server planted: false"},
		// allow_delete widens what agents may do: untrusted, it is dropped and named.
		{name: "untrusted allow_delete named", args: []string{"tools", "--root", ws, "--agent", "pulsing"},
			out: []string{"## mcp_everything_echo"}, not: []string{"## delete_file"},
			errOutput: "Settings that would widen what agents may do are ignored too: workspace.allow_delete: true"},
		{name: "tools of plan: read-only ones", args: []string{"tools", "--root", ws, "--agent", "plan"},
			out: []string{"## mcp_everything_echo"}, not: []string{"toggle_simulated_logging", "## delete_file"}},
		{name: "echo", args: []string{"tool", "--root", ws, "--mode", "yolo", "mcp_everything_echo", `{"message": "hi", "reason": "r"}`},
			out: []string{"Echo: hi"}},
		{name: "validation", args: []string{"tool", "--root", ws, "--mode", "yolo", "mcp_everything_echo", `{"reason": "r"}`}, code: 1,
			out: []string{"Invalid arguments", "message"}},
		{name: "sensitive: no TTY to confirm", args: []string{"tool", "--root", ws, "mcp_everything_echo", `{"message": "hi", "reason": "r"}`}, code: 1,
			out: []string{"needs confirmation"}, not: []string{"Echo: hi"}},
		{name: "usage", args: []string{"mcp"}, code: 2, errOutput: "usage: autarch mcp list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit = %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			for _, w := range tt.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(out, n) {
					t.Errorf("stdout has %q:\n%s", n, out)
				}
			}
			if !strings.Contains(errOut, tt.errOutput) {
				t.Errorf("stderr lacks %q:\n%s", tt.errOutput, errOut)
			}
		})
	}
}

// An agent is offered its role's MCP tools and calls one; the model's
// requests are asserted by the scripted model.
func TestAgentUsesMCPTools(t *testing.T) {
	userEverything(t)
	url, _ := testkit.StartScript(t, `-- 01.json --
{"expect": {"tools": ["mcp_everything_echo", "read_file"], "notTools": ["mcp_everything_toggle_simulated_logging"]},
 "tool_calls": [{"name": "mcp_everything_echo", "args": {"message": "from the agent", "reason": "try the server"}}]}
-- 02.json --
{"expect": {"lastToolResultContains": "Echo: from the agent"}, "text": "The server echoes."}
`)
	code, out, errb := run(t, "agent", "--root", t.TempDir(), "--role", "discussion", "--base-url", url, "--model", "scripted", "--mode", "yolo", "use the server")
	if code != 0 || !strings.Contains(out, "The server echoes.") || !strings.Contains(errb, "• mcp_everything_echo: try the server") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
}
