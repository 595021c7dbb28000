package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestGitOnPathInsideTheTreeRefused: a PATH naming a folder of the
// repository (an activated .venv/bin) must not make a git an agent wrote
// there Autarch's own: opening the repository refuses it, and it never
// runs.
func TestGitOnPathInsideTheTreeRefused(t *testing.T) {
	dir := t.TempDir()
	testkit.Git(t, dir, "init", "-q", "-b", "main")
	bin := filepath.Join(dir, ".venv", "bin")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte("#!/bin/sh\ntouch "+marker+"\nexec /usr/bin/env -u PATH git \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, at := range []string{dir, filepath.Join(dir, "sub")} {
		_, err := Open(context.Background(), at, Config{})
		if err == nil || !strings.Contains(err.Error(), "inside the work tree") {
			t.Fatalf("open %s with the tree's git first on PATH: %v, want a refusal", at, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the tree's git ran")
	}
	// A git outside the tree (a link to it inside is resolved) opens.
	t.Setenv("PATH", filepath.Dir(mustLookGit(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := Open(context.Background(), dir, Config{}); err != nil {
		t.Fatalf("open with the system git first: %v", err)
	}
}

func mustLookGit(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/git", "/usr/local/bin/git", "/bin/git"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no git in /usr/bin, /usr/local/bin or /bin")
	return ""
}
