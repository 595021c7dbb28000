package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// TestFilesystemServerEgress: the real filesystem MCP server from npm,
// serving the workspace, reads its .env (whole, with others, its tail) and
// a file holding a .env value reversed and base64'd; nothing of the .env's
// values reaches the model.
func TestFilesystemServerEgress(t *testing.T) {
	const token, dbPass = "Xk9fQ2mZ8pL4wR7tVb3n", "h0rse-Battery-9staple"
	dir := t.TempDir()
	dotenv := "API_SECRET=" + token + "\nDB_PASS=\"" + dbPass + "\"\nDEBUG=true\n"
	rev := func(s string) string {
		b := []byte(s)
		for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
			b[i], b[j] = b[j], b[i]
		}
		return string(b)
	}
	for name, content := range map[string]string{
		".env":      dotenv,
		"notes.txt": "remember the milk\n",
		"dump.txt":  base64.StdEncoding.EncodeToString([]byte(rev(dotenv))) + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m := userServers(t, map[string]tools.MCPServer{"fs": {Command: nodeBin(t, "mcp-server-filesystem"), Args: []string{dir}}})
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Register(t.Context(), "research", reg); err != nil {
		t.Fatal(err)
	}
	s, err := tools.NewSession(tools.SessionConfig{Root: dir, Role: "research", Mode: tools.ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	p := func(name string) string { return filepath.Join(dir, name) }
	attempts := []struct{ name, tool, args string }{
		{"read .env", "mcp_fs_read_text_file", fmt.Sprintf(`{"path": %q}`, p(".env"))},
		{"tail .env", "mcp_fs_read_text_file", fmt.Sprintf(`{"path": %q, "tail": 3}`, p(".env"))},
		{"read several", "mcp_fs_read_multiple_files", fmt.Sprintf(`{"paths": [%q, %q]}`, p("notes.txt"), p(".env"))},
		{"reversed and base64'd", "mcp_fs_read_text_file", fmt.Sprintf(`{"path": %q}`, p("dump.txt"))},
	}
	for _, a := range attempts {
		var args map[string]any
		json.Unmarshal([]byte(a.args), &args)
		res, err := e.Call(t.Context(), s, a.tool, testkit.ToolArgs(t, args))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Output, "[blocked]") {
			t.Errorf("%s: nothing was masked (did the server answer?): %s", a.name, res.Output)
		}
		for _, secret := range []string{token, dbPass, rev(token), base64.StdEncoding.EncodeToString([]byte(rev(dotenv)))[:40]} {
			if strings.Contains(res.Output, secret) {
				t.Errorf("%s: the model got a secret of .env (%.6s…): %s", a.name, secret, res.Output)
			}
		}
	}
}
