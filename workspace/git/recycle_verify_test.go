package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestRecycledTreeVerifiedInOneWalk (issue 35): restoring a spent tree
// reads the index the reset wrote and compares each file's stat data
// with it in the verifying walk, to the nanosecond — no ls-files, no
// diff-files (each listed or stat-ed 23k files again; the files whose
// times cannot tell them from a change, such as those the reset wrote,
// are written again from the index) — and still ends as a fresh checkout
// whatever the last workflow left: a file's mode changed, a file deleted.
func TestRecycledTreeVerifiedInOneWalk(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, wt string)
	}{
		{"nothing changed", func(t *testing.T, wt string) {}},
		{"mode changed", func(t *testing.T, wt string) {
			if err := os.Chmod(filepath.Join(wt, "old.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted", func(t *testing.T, wt string) {
			if err := os.Remove(filepath.Join(wt, "lib", "lib.go")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			r := openRepo(t, dir)
			used, err := r.CreateWorkflow(ctx, "used", "main")
			if err != nil {
				t.Fatal(err)
			}
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
			if !slices.Contains(calls, "reset") {
				t.Fatalf("the spent tree was not restored: %v", calls)
			}
			if slices.Contains(calls, "ls-files") {
				t.Errorf("git ls-files ran: %v", calls)
			}
			if slices.Contains(calls, "diff-files") {
				t.Errorf("git diff-files ran: %v", calls)
			}
			next, err := r2.CreateWorkflow(ctx, "next", "main")
			if err != nil {
				t.Fatal(err)
			}
			sameAsFreshCheckout(t, dir, next.Worktree)
			if st := gitT(t, next.Worktree, "status", "--porcelain", "--ignored"); st != "" {
				t.Errorf("git status of the next worktree:\n%s", st)
			}
		})
	}
}
