package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecycledTreeCleanedOnlyWhenNeeded (issue 35): restoring a spent
// tree runs git clean — a walk of the whole tree — only when the
// verifying walk finds a path the index does not hold; a tree holding
// one is cleaned, checked again and ends as a fresh checkout.
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
			bin, log := subcommandGit(t)
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
