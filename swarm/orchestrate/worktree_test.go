package orchestrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace"
)

// TestApplyRefusesHostilePaths: an approved proposal is still written only
// inside the worktree, never in .git, never through a symlink out of it.
func TestApplyRefusesHostilePaths(t *testing.T) {
	dir := t.TempDir()
	wt, outside := filepath.Join(dir, "wt"), filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(wt, ".git"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(wt, "link")); err != nil {
		t.Fatal(err)
	}
	root, err := workspace.Open(wt)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, tc := range []struct{ path, want string }{
		{"../outside/x", "escapes"},
		{filepath.Join(outside, "x"), "not under"},
		{"a/../../outside/x", "escapes"},
		{".git/config", "inside .git"},
		{".GIT/hooks/pre-commit", "inside .git"},
		{".", "the worktree itself"},
		{"link/x", ""},
	} {
		err := applyProposal(root, editor.SwarmProposal{Path: tc.path, Content: "pwned"}, true)
		if err == nil || tc.want != "" && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a refusal mentioning %q", tc.path, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the worktree: %v", entries)
	}
	if err := applyProposal(root, editor.SwarmProposal{Path: "new/dir/f.txt", Content: "x"}, false); err == nil || !strings.Contains(err.Error(), "create_dirs is false") {
		t.Errorf("create_dirs false: %v", err)
	}
	if err := applyProposal(root, editor.SwarmProposal{Path: "new/dir/f.txt", Content: "x"}, true); err != nil {
		t.Errorf("a plain write: %v", err)
	}
}
