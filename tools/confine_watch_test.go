package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		writeTestFile(t, filepath.Join(dir, name), body)
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
	if s.confine.full != 1 {
		t.Fatalf("first command: %d walks, want 1", s.confine.full)
	}

	// Written by a command: a new .env, a token in an existing file, a
	// new folder with a secret, a secret file renamed.
	run("printf 'API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\\n' > .env && " +
		"printf 'package pkg\\n\\nconst T = \"" + token + "\"\\n' >> pkg/a.go && " +
		"mkdir -p fresh/inner && printf 'token = " + token + "\\n' > fresh/inner/notes.txt && " +
		"printf 'token = " + token + "\\n' > pkg/deep/tmp.txt && mv pkg/deep/tmp.txt pkg/deep/moved.txt")
	// Written from outside the sandbox.
	writeTestFile(t, filepath.Join(dir, "pkg", "deep", "host.txt"), "token = "+token+"\n")

	for _, f := range []string{".env", "pkg/a.go", "fresh/inner/notes.txt", "pkg/deep/moved.txt", "pkg/deep/host.txt"} {
		r := run("cat " + f + " || true")
		if strings.Contains(r.stdout, "SECRET_VALUE") || strings.Contains(r.stdout, token) {
			t.Errorf("the next command read the secret in %s:\n%s", f, r.stdout)
		}
	}
	if s.confine.full != 1 {
		t.Errorf("%d walks of the whole tree, want 1: the changes were not followed", s.confine.full)
	}
	if r := run("cat main.go"); !strings.Contains(r.stdout, "func main") {
		t.Errorf("an unchanged clean file is masked: %q", r.stdout)
	}

	// A secret removed is no longer masked; a folder deleted walks again
	// (from outside: a command cannot remove what is masked from it).
	writeTestFile(t, filepath.Join(dir, "pkg", "deep", "moved.txt"), "clean\n")
	if err := os.RemoveAll(filepath.Join(dir, "fresh")); err != nil {
		t.Fatal(err)
	}
	run("true")
	if s.confine.full != 2 {
		t.Errorf("after a folder was deleted: %d walks of the whole tree, want 2", s.confine.full)
	}
	if r := run("cat pkg/deep/moved.txt"); !strings.Contains(r.stdout, "clean") {
		t.Errorf("a file whose secret was removed is still masked: %q", r.stdout)
	}
	if r := run("cat .env pkg/a.go pkg/deep/host.txt || true"); strings.Contains(r.stdout, "SECRET_VALUE") || strings.Contains(r.stdout, token) {
		t.Errorf("after walking again a secret is readable:\n%s", r.stdout)
	}
	writeTestFile(t, filepath.Join(dir, "pkg", "a.go"), "package pkg\n")
	if r := run("cat pkg/a.go"); !strings.Contains(r.stdout, "package pkg") {
		t.Errorf("a file whose secret was removed is still masked: %q", r.stdout)
	}
	if s.confine.full != 2 {
		t.Errorf("%d walks of the whole tree, want 2", s.confine.full)
	}
}

func writeTestFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
