package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools/mcp"
)

// autarch/project's content: rules found, repository servers not started
// for want of trust, and a live session's server state with its error.
func TestProjectState(t *testing.T) {
	t.Setenv("AUTARCH_TRUST_FILE", filepath.Join(t.TempDir(), "trusted.json"))
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	for name, content := range map[string]string{
		"AGENTS.md":             "root rules",
		".cursor/rules/sql.mdc": "---\nglobs: *.sql\n---\nsql",
		".mcp.json":             `{"mcpServers": {"repo-server": {"command": "node", "args": ["server.js"]}}}`,
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live := &liveServers{}
	st := live.projectState(context.Background(), dir)
	got, _ := json.Marshal(st)
	for _, want := range []string{`{"path":"AGENTS.md","size":10,"applies":"always"}`, `"applies":"when a file in play matches *.sql"`,
		`{"name":"repo-server","transport":"stdio","origin":"repository","state":"untrusted","tools":[],"error":"not started: the repository configuration is not trusted`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("state lacks %s:\n%s", want, got)
		}
	}

	userFile := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(userFile, []byte(`{"mcpServers": {"gone": {"command": "/nonexistent/mcp-server"}}}`), 0o600)
	m, err := mcp.NewManager(mcp.Options{UserFile: userFile, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	real, _ := filepath.EvalSymlinks(dir)
	live.add(real, m)
	m.Tools(context.Background(), "pulsing")
	st = live.projectState(context.Background(), filepath.Join(dir, "."))
	if len(st.MCPServers) != 1 || st.MCPServers[0].Name != "gone" || st.MCPServers[0].State != mcp.StateFailed || !strings.Contains(st.MCPServers[0].Error, "nonexistent") {
		t.Errorf("live state = %+v", st.MCPServers)
	}
}
