package git

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFreshMarkerAfterEveryFile (issue 35): a worktree git has just
// checked out (a workflow's, prepared, restored or a job's linked one)
// carries a marker in its admin directory whose change time is later
// than every file's: a file changed from then on, whoever changes it,
// has a change time at or after the marker's.
func TestFreshMarkerAfterEveryFile(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	check := func(t *testing.T, top string) {
		t.Helper()
		loc, err := r.git.locate(top)
		if err != nil {
			t.Fatal(err)
		}
		since, ok := freshSince(loc.gitDir)
		if !ok {
			t.Fatalf("%s has no fresh marker", top)
		}
		_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == ".git" {
				return err
			}
			var st unix.Stat_t
			if err := unix.Lstat(p, &st); err != nil {
				t.Fatal(err)
			}
			if !timespecBefore(st.Ctim, since) {
				t.Errorf("%s changed at %v, not before the marker (%v)", p, st.Ctim, since)
			}
			return nil
		})
	}
	wf, err := r.CreateWorkflow(ctx, "checked-out", "main")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("checked out", func(t *testing.T) { check(t, wf.Worktree) })
	linked := filepath.Join(t.TempDir(), "job")
	if err := r.EnsureLinkedWorktree(ctx, linked, "main", ""); err != nil {
		t.Fatal(err)
	}
	t.Run("linked", func(t *testing.T) { check(t, linked) })
	writeFile(t, filepath.Join(wf.Worktree, "lib", "lib.go"), "package lib\n")
	if err := r.RemoveWorkflow(ctx, "checked-out", RemoveOptions{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.PrepareWorktrees(ctx, "other", "main", 1); err != nil {
		t.Fatal(err)
	}
	r.prepared.mu.Lock()
	ready := append([]preparedTree(nil), r.prepared.ready...)
	r.prepared.mu.Unlock()
	if len(ready) != 2 {
		t.Fatalf("%d prepared trees, want 2", len(ready))
	}
	t.Run("restored", func(t *testing.T) { check(t, ready[0].path) })
	t.Run("prepared", func(t *testing.T) { check(t, ready[1].path) })
}

// TestUnmarkedTreeNotRecycled (issue 35): a worktree without a fresh
// marker, or a spent tree that does not say when its tree was fresh, is
// never restored — nobody can tell which of its files changed.
func TestUnmarkedTreeNotRecycled(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		unmark func(t *testing.T, r *Repo, worktree string)
	}{
		{"no marker in the admin directory", func(t *testing.T, r *Repo, worktree string) {
			loc, err := r.git.locate(worktree)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(loc.gitDir, freshMarker)); err != nil {
				t.Fatal(err)
			}
		}},
		{"no record in the spent tree", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			r := openRepo(t, dir)
			used, err := r.CreateWorkflow(ctx, "used", "main")
			if err != nil {
				t.Fatal(err)
			}
			if tc.unmark != nil {
				tc.unmark(t, r, used.Worktree)
			}
			if err := r.RemoveWorkflow(ctx, "used", RemoveOptions{DeleteBranch: true}); err != nil {
				t.Fatal(err)
			}
			if tc.unmark != nil {
				if n := len(r.spentTrees()); n != 0 {
					t.Errorf("an unmarked worktree was kept as %d spent trees", n)
				}
			} else {
				spent := r.spentTrees()
				if len(spent) != 1 {
					t.Fatalf("%d spent trees, want 1", len(spent))
				}
				if err := os.Remove(filepath.Join(spent[0], spentFresh)); err != nil {
					t.Fatal(err)
				}
			}
			bin, log := loggingGit(t)
			r2, err := Open(ctx, dir, Config{GitPath: bin})
			if err != nil {
				t.Fatal(err)
			}
			if err := r2.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
				t.Fatal(err)
			}
			if calls := gitCalls(t, log); slices.Contains(calls, "read-tree") {
				t.Errorf("an unmarked tree was restored: %v", calls)
			}
			if n := len(r2.spentTrees()); n != 0 {
				t.Errorf("%d spent trees left", n)
			}
			next, err := r2.CreateWorkflow(ctx, "next", "main")
			if err != nil {
				t.Fatal(err)
			}
			sameAsFreshCheckout(t, dir, next.Worktree)
		})
	}
}
