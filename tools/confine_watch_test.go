package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestMaskDecisionFollowsChanges (issue 35): after its first walk, a
// session decides the next command's masks from what changed in the tree
// since (its tree watch) instead of stat-ing every file again — and every
// secret written between two decisions is masked from the next command,
// whoever wrote it and however: a .env a command created, a token a
// command wrote into an existing file, a new folder holding a secret, a
// secret moved in under a new name, a file written from outside the
// sandbox. What the watch cannot follow (a folder deleted) walks the tree
// again.
func TestMaskDecisionFollowsChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	token := "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	for name, body := range map[string]string{
		"main.go":       "package main\n\nfunc main() {}\n",
		"pkg/a.go":      "package pkg\n",
		"pkg/deep/b.go": "package deep\n",
		"README.md":     "# demo\n",
	} {
		testkit.WriteFile(t, filepath.Join(dir, name), body)
	}
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(command string) commandRun {
		t.Helper()
		r, err := s.runCommand(ctx, command, 0)
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		return r
	}
	run("true")
	if s.confine.state.full != 1 {
		t.Fatalf("first command: %d walks, want 1", s.confine.state.full)
	}

	// Written by a command: a new .env, a token in an existing file, a
	// new folder with a secret, a secret file renamed.
	run("printf 'API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\\n' > .env && " +
		"printf 'package pkg\\n\\nconst T = \"" + token + "\"\\n' >> pkg/a.go && " +
		"mkdir -p fresh/inner && printf 'token = " + token + "\\n' > fresh/inner/notes.txt && " +
		"printf 'token = " + token + "\\n' > pkg/deep/tmp.txt && mv pkg/deep/tmp.txt pkg/deep/moved.txt")
	// Written from outside the sandbox.
	testkit.WriteFile(t, filepath.Join(dir, "pkg", "deep", "host.txt"), "token = "+token+"\n")

	for _, f := range []string{".env", "pkg/a.go", "fresh/inner/notes.txt", "pkg/deep/moved.txt", "pkg/deep/host.txt"} {
		r := run("cat " + f + " || true")
		if strings.Contains(r.stdout, "SECRET_VALUE") || strings.Contains(r.stdout, token) {
			t.Errorf("the next command read the secret in %s:\n%s", f, r.stdout)
		}
	}
	if s.confine.state.full != 1 {
		t.Errorf("%d walks of the whole tree, want 1: the changes were not followed", s.confine.state.full)
	}
	if r := run("cat main.go"); !strings.Contains(r.stdout, "func main") {
		t.Errorf("an unchanged clean file is masked: %q", r.stdout)
	}

	// A secret removed is no longer masked; a folder deleted walks again
	// (from outside: a command cannot remove what is masked from it).
	testkit.WriteFile(t, filepath.Join(dir, "pkg", "deep", "moved.txt"), "clean\n")
	if err := os.RemoveAll(filepath.Join(dir, "fresh")); err != nil {
		t.Fatal(err)
	}
	run("true")
	if s.confine.state.full != 2 {
		t.Errorf("after a folder was deleted: %d walks of the whole tree, want 2", s.confine.state.full)
	}
	if r := run("cat pkg/deep/moved.txt"); !strings.Contains(r.stdout, "clean") {
		t.Errorf("a file whose secret was removed is still masked: %q", r.stdout)
	}
	if r := run("cat .env pkg/a.go pkg/deep/host.txt || true"); strings.Contains(r.stdout, "SECRET_VALUE") || strings.Contains(r.stdout, token) {
		t.Errorf("after walking again a secret is readable:\n%s", r.stdout)
	}
	testkit.WriteFile(t, filepath.Join(dir, "pkg", "a.go"), "package pkg\n")
	if r := run("cat pkg/a.go"); !strings.Contains(r.stdout, "package pkg") {
		t.Errorf("a file whose secret was removed is still masked: %q", r.stdout)
	}
	if s.confine.state.full != 2 {
		t.Errorf("%d walks of the whole tree, want 2", s.confine.state.full)
	}
}

// TestMaskStateSharedByRunSessions (issue 35): the sessions of a run in
// one tree share what the mask decisions know (SessionConfig.Masks), so
// the next stage's or pulse's first command does not walk the tree again,
// and a secret written after the first session's last command is masked
// from the next session's first; a session with another gate keeps its
// own.
func TestMaskStateSharedByRunSessions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() {}\n")
	testkit.WriteFile(t, filepath.Join(dir, "pkg", "a.go"), "package pkg\n")
	masks := NewMaskState()
	defer masks.Close()
	open := func(paths ...string) *Session {
		t.Helper()
		s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo, Masks: masks, SensitivePaths: paths})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	first := open()
	if _, err := first.runCommand(ctx, "printf 'API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\\n' > pkg/.env", 0); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, filepath.Join(dir, "later.txt"), "API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\n")

	next := open()
	r, err := next.runCommand(ctx, "cat pkg/.env later.txt main.go || true", 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.stdout, "SECRET_VALUE") {
		t.Errorf("the next session's command read a secret:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "func main") {
		t.Errorf("main.go is masked: %q", r.stdout)
	}
	if masks.full != 1 {
		t.Errorf("two sessions walked the tree %d times, want 1", masks.full)
	}

	other := open("*.md")
	if _, err := other.runCommand(ctx, "true", 0); err != nil {
		t.Fatal(err)
	}
	if other.confine.state == masks || other.confine.state.full != 1 {
		t.Errorf("a session with another gate used the run's state (%d walks of its own)", other.confine.state.full)
	}
}
