package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLinkedWorktree: a job's worktree is made detached at a commit (or on
// its branch), again when its folder disappeared, never over a folder
// that is no worktree, and removed with its branch kept; hooks never run
// and the user's state is untouched; many at once never race on
// .git/config.lock (the ref lock).
func TestLinkedWorktree(t *testing.T) {
	ctx := context.Background()
	dir, hooks := userRepo(t)
	r := openRepo(t, dir)
	before := snapshot(t, dir)
	head := strings.TrimSpace(gitT(t, dir, "rev-parse", "HEAD"))
	if b, err := r.DefaultBranch(ctx); err != nil || b != "main" {
		t.Fatalf("default branch %q (%v), want main", b, err)
	}

	path := filepath.Join(r.WorktreeRoot(), "job-0001")
	for _, step := range []string{"create", "again", "after the folder disappeared"} {
		if step == "after the folder disappeared" {
			if err := os.RemoveAll(path); err != nil {
				t.Fatal(err)
			}
		}
		if err := r.EnsureLinkedWorktree(ctx, path, head, ""); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := strings.TrimSpace(gitT(t, path, "rev-parse", "HEAD")); got != head {
			t.Fatalf("%s: the worktree is at %s, want %s", step, got, head)
		}
	}
	if _, err := r.Git(ctx, path, nil, "checkout", "-q", "-b", "ai/job"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveLinkedWorktree(ctx, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed worktree's folder is still there (%v)", err)
	}
	if err := r.EnsureLinkedWorktree(ctx, path, head, "ai/job"); err != nil {
		t.Fatalf("recreate on the branch: %v", err)
	}
	if got := strings.TrimSpace(gitT(t, path, "branch", "--show-current")); got != "ai/job" {
		t.Errorf("the worktree is on %q, want ai/job", got)
	}

	squat := filepath.Join(r.WorktreeRoot(), "job-0002")
	writeFile(t, filepath.Join(squat, "mine.txt"), "not a worktree\n")
	if err := r.EnsureLinkedWorktree(ctx, squat, head, ""); !errors.Is(err, ErrNotWorktree) {
		t.Errorf("over a folder that is no worktree: %v, want ErrNotWorktree", err)
	}

	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := filepath.Join(r.WorktreeRoot(), fmt.Sprintf("job-p%d", i))
			if errs[i] = r.EnsureLinkedWorktree(ctx, p, head, ""); errs[i] == nil {
				errs[i] = r.RemoveLinkedWorktree(ctx, p)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Errorf("worktrees made and removed at once: %v", err)
	}
	sameSnapshot(t, "after the job worktrees", before, snapshot(t, dir))
	if ran := hooksRan(t, hooks); ran != "" {
		t.Errorf("hooks ran: %s", ran)
	}
}
