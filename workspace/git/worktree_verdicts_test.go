package git

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// TestCleanFiles: in a linked worktree, the tracked files whose content is
// a blob the store scanned and found clean are listed — not a modified
// one, not one whose blob is withheld (a content secret), not one hidden
// by assume-unchanged, not an untracked one; nothing at all where a filter
// is configured, in the user's own checkout, or before the store covers
// the index.
func TestCleanFiles(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo")
	gitT(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	writeFile(t, filepath.Join(dir, "lib", "lib.go"), "package lib\n")
	writeFile(t, filepath.Join(dir, "edited.go"), "package main\n\n// edited later\n")
	writeFile(t, filepath.Join(dir, "hidden.go"), "package main\n\n// hidden later\n")
	writeFile(t, filepath.Join(dir, "keys.txt"), "token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "one")
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "clean", "main")
	if err != nil {
		t.Fatal(err)
	}
	wt := wf.Worktree
	store := func() *SandboxObjects {
		wr, err := OpenWorktree(ctx, wt, r.CommonDir(), Config{})
		if err != nil {
			t.Fatal(err)
		}
		return wr.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	}
	s := store()
	if got, err := s.CleanFiles(ctx, wt); err != nil || got != nil {
		t.Fatalf("before the store was built: %v, %v; want nothing", got, err)
	}
	writeFile(t, filepath.Join(wt, "edited.go"), "package main\n\n// edited: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n")
	writeFile(t, filepath.Join(wt, "hidden.go"), "package main\n\n// hidden: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n")
	if _, err := r.Git(ctx, wt, nil, "update-index", "--assume-unchanged", "hidden.go"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wt, "new.go"), "package main\n")
	updateStore(t, s)
	got, err := s.CleanFiles(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for p := range got {
		names = append(names, p)
	}
	slices.Sort(names)
	if want := []string{"lib/lib.go", "main.go"}; !slices.Equal(names, want) {
		t.Errorf("clean files %v, want %v", names, want)
	}

	// The user's own checkout: nothing.
	main := openRepo(t, dir).SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	updateStore(t, main)
	if got, err := main.CleanFiles(ctx, dir); err != nil || got != nil {
		t.Errorf("the user's checkout: %v, %v; want nothing", got, err)
	}

	// A filter configured: nothing.
	gitT(t, dir, "config", "filter.crypt.smudge", "cat")
	if got, err := s.CleanFiles(ctx, wt); err != nil || got != nil {
		t.Errorf("with a filter configured: %v, %v; want nothing", got, err)
	}
	gitT(t, dir, "config", "--unset", "filter.crypt.smudge")
	if got, _ := s.CleanFiles(ctx, wt); len(got) == 0 {
		t.Error("without the filter again: nothing listed")
	}

	// Attributes that may re-encode files on checkout: nothing.
	writeFile(t, filepath.Join(dir, ".git", "info", "attributes"), "*.go working-tree-encoding=UTF-16\n")
	if got, err := s.CleanFiles(ctx, wt); err != nil || got != nil {
		t.Errorf("with info/attributes re-encoding: %v, %v; want nothing", got, err)
	}
	writeFile(t, filepath.Join(dir, ".git", "info", "attributes"), "")

	// The index changed since the store's update: nothing.
	if _, err := r.Git(ctx, wt, nil, "add", "new.go"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.CleanFiles(ctx, wt); err != nil || got != nil {
		t.Errorf("after the index changed: %v, %v; want nothing", got, err)
	}
	if strings.Contains(strings.Join(names, " "), "keys.txt") {
		t.Error("a withheld blob is listed")
	}
}
