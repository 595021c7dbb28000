package git

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Removing a worktree is deleting its files: 23k of them took 15–40 s on
// a loaded machine (issue 35), and a workflow's end waited for it.
// removeWorktree therefore moves the files aside first — renames of the
// top-level entries into <worktree root>/.trash, inside Autarch's state,
// which no sandboxed command sees — lets git remove the near-empty
// worktree and its registration as before, and deletes the files in the
// background. Files a process could not finish deleting (it exited) are
// deleted by the next PrepareWorktrees of any process (sweepTrash). Only
// worktrees under the worktree root are handled so; git removes any other
// the ordinary way.

// trashDir holds the files of removed worktrees until they are deleted
// ("." starts no workflow name).
func (r *Repo) trashDir() string { return filepath.Join(r.worktreeRoot, ".trash") }

// removeWorktree removes the worktree at path (git worktree remove
// --force), its files deleted in the background when it lies under the
// worktree root.
func (r *Repo) removeWorktree(ctx context.Context, path string) error {
	aside, moved := r.setAside(path)
	if _, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", path); err != nil {
		putBack(aside, path, moved)
		return err
	}
	if aside != "" {
		go func() { _ = os.RemoveAll(aside) }() // what is left is swept later
	}
	return nil
}

// setAside moves the entries of the worktree at path, but its .git file,
// into a new folder of the trash and returns it and the names moved ("",
// nil when path is not under the worktree root or nothing could be moved;
// a failed rename puts back what moved).
func (r *Repo) setAside(path string) (string, []string) {
	if r.worktreeRoot == "" || !isUnder(path, r.worktreeRoot) || isUnder(path, r.trashDir()) {
		return "", nil
	}
	aside := r.prepared.next(r.trashDir()) // <pid>-<seq>
	if err := os.MkdirAll(aside, 0o700); err != nil {
		return "", nil
	}
	moved, ok := moveEntries(path, aside)
	if !ok {
		_ = os.Remove(aside)
		return "", nil
	}
	return aside, moved
}

// putBack returns the entries setAside moved (the removal failed).
func putBack(aside, path string, moved []string) {
	if aside == "" {
		return
	}
	moveBack(aside, path, moved)
	_ = os.Remove(aside)
}

// sweepTrash deletes what removed worktrees left in the trash, but the
// folders this process is still deleting.
func (r *Repo) sweepTrash() {
	entries, err := os.ReadDir(r.trashDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, _, _ := strings.Cut(e.Name(), "-")
		if n, err := strconv.Atoi(pid); err == nil && alive(n) {
			continue // this or another live process is deleting it
		}
		_ = os.RemoveAll(filepath.Join(r.trashDir(), e.Name()))
	}
}
