package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestRecycledTreeCleanedOnlyWhenNeeded (issue 35): restoring a spent
// tree runs git clean — a walk of the whole tree — only when the
// verifying walk finds a path the index does not hold; a tree holding
// one is cleaned, checked again and ends as a fresh checkout. The walk
// reads the index the reset wrote and compares each file's stat data with
// it, to the nanosecond: no ls-files, no diff-files (the files whose times
// cannot tell them from a change, such as those the reset wrote, are
// written again from the index), and a mode changed or a file deleted is
// put back.
func TestRecycledTreeCleanedOnlyWhenNeeded(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, wt string)
		clean bool
	}{
		{"nothing planted", func(t *testing.T, wt string) {}, false},
		{"an ignored file", func(t *testing.T, wt string) {
			writeFile(t, filepath.Join(wt, "lib", "trace.log"), "ignored\n")
		}, true},
		{"an untracked folder", func(t *testing.T, wt string) {
			writeFile(t, filepath.Join(wt, "build", "deep", "out.bin"), "artifact\n")
		}, true},
		{"a nested repository", func(t *testing.T, wt string) {
			gitT(t, wt, "init", "-q", filepath.Join(wt, "nested"))
		}, true},
		{"a mode changed", func(t *testing.T, wt string) {
			if err := os.Chmod(filepath.Join(wt, "old.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file deleted", func(t *testing.T, wt string) {
			if err := os.Remove(filepath.Join(wt, "main.go")); err != nil {
				t.Fatal(err)
			}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			r := openRepo(t, dir)
			used, err := r.CreateWorkflow(ctx, "used", "main")
			if err != nil {
				t.Fatal(err)
			}
			// A file below the top: the top's entries are renamed aside,
			// which sets their change time, and git rewrites those whose
			// change time moved on to another second.
			before := inode(t, filepath.Join(used.Worktree, "lib", "lib.go"))
			tc.plant(t, used.Worktree)
			if err := r.RemoveWorkflow(ctx, "used", RemoveOptions{DeleteBranch: true}); err != nil {
				t.Fatal(err)
			}
			bin, log := loggingGit(t)
			r2, err := Open(ctx, dir, Config{GitPath: bin})
			if err != nil {
				t.Fatal(err)
			}
			if err := r2.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
				t.Fatal(err)
			}
			calls := gitCalls(t, log)
			if got := slices.Contains(calls, "clean"); got != tc.clean {
				t.Errorf("git clean ran: %v, want %v (%v)", got, tc.clean, calls)
			}
			// The walk reads the index and compares each file's stat data
			// with it: no ls-files, no diff-files (issue 35: each listed
			// or stat-ed a 23k-file tree again).
			for _, c := range []string{"ls-files", "diff-files"} {
				if slices.Contains(calls, c) {
					t.Errorf("git %s ran: %v", c, calls)
				}
			}
			next, err := r2.CreateWorkflow(ctx, "next", "main")
			if err != nil {
				t.Fatal(err)
			}
			if got := inode(t, filepath.Join(next.Worktree, "lib", "lib.go")); got != before {
				t.Errorf("the spent tree was not recycled (lib/lib.go inode %d, was %d)", got, before)
			}
			sameAsFreshCheckout(t, dir, next.Worktree)
			if st := gitT(t, next.Worktree, "status", "--porcelain", "--ignored"); st != "" {
				t.Errorf("git status of the next worktree:\n%s", st)
			}
			if _, err := os.Lstat(filepath.Join(next.Worktree, "nested")); !os.IsNotExist(err) {
				t.Errorf("nested: %v", err)
			}
		})
	}
}

// TestRecycledTopLevelFilesKept (issue 35): retiring and restoring a tree
// moves its folder whole, so its top-level files keep their change time
// (renaming a file sets it) and are recycled like the others: git, which
// compares change times when the tree is restored, rewrote each one
// whenever a second had passed since the checkout.
func TestRecycledTopLevelFilesKept(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	used, err := r.CreateWorkflow(ctx, "used", "main")
	if err != nil {
		t.Fatal(err)
	}
	ctime := func(p string) syscall.Timespec {
		t.Helper()
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ctim
	}
	before, ino := ctime(filepath.Join(used.Worktree, "old.txt")), inode(t, filepath.Join(used.Worktree, "old.txt"))
	if err := r.RemoveWorkflow(ctx, "used", RemoveOptions{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	spent := r.spentTrees()
	if len(spent) != 1 {
		t.Fatalf("%d spent trees, want 1", len(spent))
	}
	if got := ctime(filepath.Join(spent[0], "tree", "old.txt")); got != before {
		t.Errorf("retiring the tree changed old.txt's change time: %v, was %v", got, before)
	}
	if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
		t.Fatal(err)
	}
	next, err := r.CreateWorkflow(ctx, "next", "main")
	if err != nil {
		t.Fatal(err)
	}
	if got := ctime(filepath.Join(next.Worktree, "old.txt")); got != before {
		t.Errorf("restoring the tree changed old.txt's change time: %v, was %v", got, before)
	}
	if got := inode(t, filepath.Join(next.Worktree, "old.txt")); got != ino {
		t.Errorf("old.txt was not recycled (inode %d, was %d)", got, ino)
	}
	sameAsFreshCheckout(t, dir, next.Worktree)
	if st := gitT(t, next.Worktree, "status", "--porcelain", "--ignored"); st != "" {
		t.Errorf("git status of the next worktree:\n%s", st)
	}
}
