package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitCalls lists the git subcommands loggingGit logged, in order: the
// word after the last -c setting (every call passes some; the -C folder
// before them may hold spaces).
func gitCalls(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var calls []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		last := -1
		for i, w := range f {
			if w == "-c" {
				last = i
			}
		}
		if last >= 0 && last+2 < len(f) {
			calls = append(calls, f[last+2])
		}
	}
	return calls
}

// TestPreparedWorktreeTakenWithoutCheckout (issue 35): a new workflow's
// branch points at the commit its worktree was prepared at, so taking the
// worktree moves HEAD only — git checkout stat-ed every file and rewrote
// the index to switch between identical trees — and the worktree is on
// the branch, clean, its index and files untouched. A branch that moved
// on since is still checked out.
func TestPreparedWorktreeTakenWithoutCheckout(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	bin, log := loggingGit(t)
	r, err := Open(ctx, dir, Config{GitPath: bin})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.PrepareWorktrees(ctx, "prep", "main", 1); err != nil {
		t.Fatal(err)
	}
	entries := preparedEntries(t, r)
	if len(entries) != 1 {
		t.Fatalf("prepared folders %v, want 1", entries)
	}
	admin := gitT(t, filepath.Join(r.preparedDir(), entries[0]), "rev-parse", "--absolute-git-dir")
	index := inode(t, filepath.Join(admin, "index"))
	readme := inode(t, filepath.Join(r.preparedDir(), entries[0], "README.md"))
	if err := os.Truncate(log, 0); err != nil {
		t.Fatal(err)
	}

	wf, err := r.CreateWorkflow(ctx, "prep", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range gitCalls(t, log) {
		if c == "checkout" || c == "reset" || c == "read-tree" {
			t.Errorf("taking the prepared worktree ran git %s: %v", c, gitCalls(t, log))
		}
	}
	if got := gitT(t, wf.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/"+wf.Branch {
		t.Errorf("workflow worktree on %s, want refs/heads/%s", got, wf.Branch)
	}
	if got := inode(t, filepath.Join(admin, "index")); got != index {
		t.Errorf("the index was rewritten (inode %d, was %d)", got, index)
	}
	if got := inode(t, filepath.Join(wf.Worktree, "README.md")); got != readme {
		t.Errorf("README.md was written again (inode %d, was %d)", got, readme)
	}
	if st := gitT(t, wf.Worktree, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("the taken worktree is not clean:\n%s", st)
	}
	if got, want := gitT(t, wf.Worktree, "rev-parse", "HEAD"), gitT(t, dir, "rev-parse", "main"); got != want {
		t.Errorf("HEAD at %s, want main's %s", got, want)
	}

	// The branch moves on; the next prepared worktree (at the old commit)
	// is checked out at the branch's commit.
	if err := r.PrepareWorktrees(ctx, "prep2", "main", 1); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "new.txt"), "new\n")
	gitT(t, wf.Worktree, "add", "new.txt")
	gitT(t, wf.Worktree, "commit", "-q", "-m", "new")
	pt := filepath.Join(t.TempDir(), "pt")
	gitT(t, dir, "branch", "moved", wf.Branch)
	err = r.refLock(ctx, func() error {
		if !r.claimPrepared(ctx, pt, "moved") {
			t.Error("the prepared worktree was not taken")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(pt, "new.txt")); got != "new\n" {
		t.Errorf("new.txt = %q in a worktree taken for a branch that moved on", got)
	}
	if st := gitT(t, pt, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("the worktree taken for a branch that moved on is not clean:\n%s", st)
	}
}
