package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// inode is a file's inode number: the same number after a claim shows the
// prepared file was kept, not written again.
func inode(tb testing.TB, path string) uint64 {
	tb.Helper()
	info, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t).Ino
}

// preparedEntries lists the folders under the prepared-worktree directory.
func preparedEntries(tb testing.TB, r *Repo) []string {
	tb.Helper()
	entries, err := os.ReadDir(r.preparedDir())
	if err != nil && !os.IsNotExist(err) {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestPreparedWorktrees: a worktree prepared ahead (issue 35) becomes the
// workflow's worktree and then a parallel pulse's — files kept, not
// written again, the branch checked out even when it moved on since the
// worktree was prepared, the user's state and hooks untouched — and each
// prepared worktree is handed out once: a removed workflow's worktree is
// never given to the next one.
func TestPreparedWorktrees(t *testing.T) {
	ctx := context.Background()
	dir, hookDir := userRepo(t)
	before := snapshot(t, dir)
	r := openRepo(t, dir)
	if err := r.PrepareWorktrees(ctx, "prep", "main", 2); err != nil {
		t.Fatal(err)
	}
	if got := r.PreparedWorktrees(); got != 2 {
		t.Fatalf("prepared %d worktrees, want 2", got)
	}
	entries := preparedEntries(t, r)
	if len(entries) != 2 {
		t.Fatalf("prepared folders %v, want 2", entries)
	}
	prepared := filepath.Join(r.preparedDir(), entries[0])
	readme := inode(t, filepath.Join(prepared, "README.md"))

	wf, err := r.CreateWorkflow(ctx, "prep", "main")
	if err != nil {
		t.Fatal(err)
	}
	if got := inode(t, filepath.Join(wf.Worktree, "README.md")); got != readme {
		t.Errorf("the workflow's README.md is inode %d, the prepared one %d: the worktree was checked out again, not taken", got, readme)
	}
	if got := gitT(t, wf.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/"+wf.Branch {
		t.Errorf("workflow worktree on %s, want %s", got, wf.Branch)
	}
	if st := gitT(t, wf.Worktree, "status", "--porcelain"); st != "" {
		t.Errorf("taken worktree is not clean:\n%s", st)
	}
	if got := r.PreparedWorktrees(); got != 1 {
		t.Errorf("%d prepared worktrees left, want 1", got)
	}

	// The workflow moves on: a pulse adds a file. The next prepared
	// worktree (at the old commit) becomes a parallel pulse's worktree at
	// the new head.
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "lib", "three.go"), "package lib\n\nconst Three = 3\n")
	if _, err := wf.CompletePulse(ctx, "p1", "feat(lib): three"); err != nil {
		t.Fatal(err)
	}
	pt, err := wf.OpenPulseTree(ctx, "q1")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(pt.Path, "lib", "three.go")); !strings.Contains(got, "Three") {
		t.Errorf("pulse worktree lacks the workflow head's new file: %q", got)
	}
	if got := gitT(t, pt.Path, "symbolic-ref", "HEAD"); got != "refs/heads/"+pt.Branch {
		t.Errorf("pulse worktree on %s, want %s", got, pt.Branch)
	}
	if st := gitT(t, pt.Path, "status", "--porcelain"); st != "" {
		t.Errorf("pulse worktree is not clean:\n%s", st)
	}
	if got := preparedEntries(t, r); len(got) != 0 || r.PreparedWorktrees() != 0 {
		t.Errorf("prepared worktrees left after two were taken: %v", got)
	}
	if list := gitT(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, ".prepared") {
		t.Errorf("a prepared worktree is still registered:\n%s", list)
	}

	// A used worktree is never handed out again.
	writeFile(t, filepath.Join(wf.Worktree, "planted.log"), "an agent's ignored file\n")
	if err := r.RemoveWorkflow(ctx, "prep", RemoveOptions{DeleteBranch: true, DeletePulseBranches: true}); err != nil {
		t.Fatal(err)
	}
	wf2, err := r.CreateWorkflow(ctx, "prep2", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wf2.Worktree, "planted.log")); err == nil {
		t.Error("the next workflow's worktree holds a file planted in a used one")
	}
	if got := hooksRan(t, hookDir); got != "" {
		t.Errorf("hooks ran: %s", got)
	}
	sameSnapshot(t, "after prepared worktrees", before, snapshot(t, dir))
}

// TestPreparedWorktreesOfGoneProcessesDropped: a prepared worktree another
// process left (its process is gone; nobody vouches for it) is removed,
// never handed out, and its registration pruned.
func TestPreparedWorktreesOfGoneProcessesDropped(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	// A process id that does not exist: above the kernel's pid_max.
	orphan := filepath.Join(r.preparedDir(), "4194305-1")
	gitT(t, dir, "worktree", "add", "--quiet", "--detach", orphan, "main")
	writeFile(t, filepath.Join(orphan, "planted.log"), "left behind\n")
	if err := r.PrepareWorktrees(ctx, "prep", "main", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the orphaned prepared worktree is still there")
	}
	if list := gitT(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, "4194305-1") {
		t.Errorf("the orphan is still registered:\n%s", list)
	}
	wf, err := r.CreateWorkflow(ctx, "fresh", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(wf.Worktree, "planted.log")); err == nil {
		t.Error("the workflow got the orphan's planted file")
	}
	if r.PreparedWorktrees() != 0 {
		t.Errorf("%d prepared worktrees left, want 0", r.PreparedWorktrees())
	}
}

// TestDropPreparedWorktrees: a run's unused prepared worktrees are removed
// when it ends, and another run's stay.
func TestDropPreparedWorktrees(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	if err := r.PrepareWorktrees(ctx, "a", "main", 2); err != nil {
		t.Fatal(err)
	}
	if err := r.PrepareWorktrees(ctx, "b", "main", 1); err != nil {
		t.Fatal(err)
	}
	if got := r.PreparedWorktrees(); got != 3 {
		t.Fatalf("%d prepared, want 3", got)
	}
	if err := r.DropPreparedWorktrees(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, entries := r.PreparedWorktrees(), preparedEntries(t, r); got != 1 || len(entries) != 1 {
		t.Errorf("after dropping a's: %d ready, folders %v; want b's one", got, entries)
	}
	if list := gitT(t, dir, "worktree", "list", "--porcelain"); strings.Count(list, ".prepared") != 1 {
		t.Errorf("want one prepared worktree registered:\n%s", list)
	}
}
