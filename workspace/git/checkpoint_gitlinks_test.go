package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckpointReadsGitlinksFromTheIndex (issue 35): after staging, the
// checkpoint looks for gitlinks the base does not have in the index file
// itself, with no git process (a diff-index read a 23k-entry index after
// every checkpoint), and still catches a nested repository that appears
// between the listing of untracked files and the staging: git stages it
// as a gitlink, which the checkpoint takes back out.
func TestCheckpointReadsGitlinksFromTheIndex(t *testing.T) {
	ctx := context.Background()
	t.Run("no gitlink, no git process", func(t *testing.T) {
		dir, _ := userRepo(t)
		r, log := loggedRepo(t, dir)
		wf := pulseStarted(t, r, "links")
		writeFile(t, filepath.Join(wf.Worktree, "new.go"), "package main\n")
		writeFile(t, filepath.Join(wf.Worktree, "main.go"), "package main\n\n// edited\n")
		if err := os.Truncate(log, 0); err != nil {
			t.Fatal(err)
		}
		cp, err := wf.CompletePulse(ctx, "p1", "feat: pulse one")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(readFile(t, log), " diff-index --cached"); n != 0 {
			t.Errorf("the staged index was diffed against the base %d times for gitlinks, want none:\n%s", n, readFile(t, log))
		}
		tree := strings.Split(gitT(t, dir, "ls-tree", "-r", "--name-only", cp.Commit), "\n")
		for _, f := range []string{"new.go", "main.go"} {
			if !slices.Contains(tree, f) {
				t.Errorf("the checkpoint lacks %s: %v", f, tree)
			}
		}
	})
	t.Run("a repository made after the listing", func(t *testing.T) {
		dir, _ := userRepo(t)
		r := openRepo(t, dir)
		wf := pulseStarted(t, r, "late")
		st, err := wf.state(ctx)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(wf.Worktree, "thing"), "a file for now\n")
		writeFile(t, filepath.Join(wf.Worktree, "kept.go"), "package main\n")
		// The listing names the file thing; then, before git stages it,
		// it becomes a repository with a commit.
		list := func(ctx context.Context, exclude []string) ([]string, error) {
			out, err := r.untracked(ctx, wf.Worktree, nil, exclude)
			if err != nil {
				return nil, err
			}
			thing := filepath.Join(wf.Worktree, "thing")
			if err := os.Remove(thing); err != nil {
				return nil, err
			}
			gitT(t, wf.Worktree, "init", "-q", "thing")
			writeFile(t, filepath.Join(thing, "in.go"), "package thing\n")
			gitT(t, thing, "add", "in.go")
			gitT(t, thing, "-c", "user.name=A", "-c", "user.email=a@example.com", "commit", "-q", "-m", "inside")
			return out, nil
		}
		tree, excluded, err := r.stageIn(ctx, wf.Worktree, st.head, nil, list)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(excluded, func(e Excluded) bool { return e.Path == "thing" }) {
			t.Errorf("the repository made after the listing is not reported as left out: %v", excluded)
		}
		entries := gitT(t, dir, "ls-tree", "-r", tree)
		if strings.Contains(entries, "thing") || strings.Contains(entries, "160000") {
			t.Errorf("the staged tree holds the late repository:\n%s", entries)
		}
		if !strings.Contains(entries, "kept.go") {
			t.Errorf("the staged tree lacks kept.go:\n%s", entries)
		}
		if idx := gitT(t, wf.Worktree, "ls-files", "--stage"); strings.Contains(idx, "160000") {
			t.Errorf("the index keeps a gitlink:\n%s", idx)
		}
	})
}
