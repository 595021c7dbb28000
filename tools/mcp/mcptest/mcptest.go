// Package mcptest finds the pinned MCP servers tests run for real (the
// repository's root devDependencies, installed by npm ci).
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Server is the path of the MCP server name (e.g. mcp-server-everything)
// in the repository's node_modules/.bin, or in the folder
// AUTARCH_TEST_NODE_BIN names; tb fails, saying how to install it, when it
// or node is missing.
func Server(tb testing.TB, name string) string {
	tb.Helper()
	dir := os.Getenv("AUTARCH_TEST_NODE_BIN")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "node_modules", ".bin")
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("%s is missing: run `npm ci` at the repository root (it installs the pinned MCP test servers): %v", p, err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		tb.Fatalf("node is not installed: the MCP servers of these tests need it: %v", err)
	}
	return p
}
