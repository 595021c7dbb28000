package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// TestFillLinesAsSplit: the lines a page shows are those of the file's
// redacted text split at '\n' (the '\r' trimmed), in any order of the
// page, with [blocked] past the last line and for a file the gate blocks;
// a second file's lines do not disturb the first's.
func TestFillLinesAsSplit(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 250)
	files := map[string]string{
		"a.txt":   "one\r\ntwo\n\n" + long + "\nlast\n",
		"b.txt":   "no newline at the end",
		"c.txt":   "",
		"key.txt": "token\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	gate := workspace.DefaultGate()
	page := []GrepMatch{
		{FilePath: "a.txt", LineNumber: 4}, {FilePath: "a.txt", LineNumber: 1}, {FilePath: "b.txt", LineNumber: 1},
		{FilePath: "a.txt", LineNumber: 2}, {FilePath: "a.txt", LineNumber: 3}, {FilePath: "a.txt", LineNumber: 6},
		{FilePath: "a.txt", LineNumber: 7}, {FilePath: "a.txt", LineNumber: 5}, {FilePath: "b.txt", LineNumber: 2}, {FilePath: "b.txt", LineNumber: 1},
		{FilePath: "c.txt", LineNumber: 1}, {FilePath: "c.txt", LineNumber: 2}, {FilePath: "key.txt", LineNumber: 1},
		{FilePath: "gone.txt", LineNumber: 1},
	}
	want := []string{long[:200] + "…", "one", "no newline at the end", "two", "", "", workspace.Blocked, "last",
		workspace.Blocked, "no newline at the end", "", workspace.Blocked, workspace.Blocked, workspace.Blocked}
	fillLines(root, gate, page)
	for i, g := range page {
		if g.Line != want[i] {
			t.Errorf("%s:%d: %q, want %q", g.FilePath, g.LineNumber, g.Line, want[i])
		}
	}
}
