package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// TestMaskVerdictsOutliveSession: the content verdicts of a session's mask
// walk are kept in the repository's state, so the next session (a CLI
// call, the next pulse in the same worktree) knows every file's verdict
// without reading it, and masks the same files.
func TestMaskVerdictsOutliveSession(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"main.go":    "package main\n\nfunc main() {}\n",
		"notes.txt":  "token = " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n",
		"pkg/a.go":   "package pkg\n",
		"README.md":  "# demo\n",
		"config.yml": "name: demo\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	first, err := NewSession(SessionConfig{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	masked, err := first.secretFiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "notes.txt")}
	if !slices.Equal(masked, want) {
		t.Fatalf("first session masks %q, want %q", masked, want)
	}

	next, err := NewSession(SessionConfig{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	for name := range files {
		fi, err := os.Lstat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, blocked, known := next.gate.KnownVerdict(name, workspace.StampOf(fi))
		if !known || blocked != (name == "notes.txt") {
			t.Errorf("%s: the next session's gate knows %v (blocked %v) before reading it", name, known, blocked)
		}
	}
	if masked, err := next.secretFiles(); err != nil || !slices.Equal(masked, want) {
		t.Errorf("next session masks %q (%v), want %q", masked, err, want)
	}
}
