package mcptest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// UserFile writes servers as a user's mcp.json ({"mcpServers": …}) in a
// temporary folder of tb's and returns its path, for mcp.Options.UserFile.
func UserFile(tb testing.TB, servers map[string]tools.MCPServer) string {
	tb.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		tb.Fatal(err)
	}
	file := filepath.Join(tb.TempDir(), "mcp.json")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return file
}
