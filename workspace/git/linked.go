package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotWorktree is EnsureLinkedWorktree's refusal of a folder that
// exists, is not empty and is no worktree of the repository.
var ErrNotWorktree = errors.New("the folder exists and is not a worktree")

// EnsureLinkedWorktree makes sure a linked worktree of the repository
// lives at path, outside the user's folder: checked out on branch when
// branch is set, else detached at commit. A worktree whose folder
// disappeared is pruned and recreated; a non-empty folder that is no
// worktree is refused (ErrNotWorktree). The user's HEAD, index and
// working tree are never touched. It runs under the repository's ref lock,
// like every worktree and ref change of this package (a job's worktree,
// issue 30).
func (r *Repo) EnsureLinkedWorktree(ctx context.Context, path, commit, branch string) error {
	return r.refLock(ctx, func() error {
		list, err := r.Worktrees(ctx)
		if err != nil {
			return err
		}
		for _, w := range list {
			if samePath(w.Path, path) && !w.Prunable {
				if _, err := os.Stat(path); err == nil {
					return nil
				}
			}
		}
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "prune"); err != nil {
			return fmt.Errorf("prune stale worktrees: %w", err)
		}
		if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 {
			return fmt.Errorf("%w: %s", ErrNotWorktree, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("worktree directory: %w", err)
		}
		args := []string{"worktree", "add", "--quiet", "--detach", path, commit}
		if branch != "" {
			args = []string{"worktree", "add", "--quiet", path, branch}
		}
		if _, err := r.git.run(ctx, r.dir, nil, args...); err != nil {
			return err
		}
		r.markTreeFresh(path)
		return nil
	})
}

// RemoveLinkedWorktree removes the linked worktree at path (its branch
// stays), under the repository's ref lock.
func (r *Repo) RemoveLinkedWorktree(ctx context.Context, path string) error {
	return r.refLock(ctx, func() error {
		_, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", path)
		return err
	})
}

// DefaultBranch is the repository's default branch: origin's HEAD, else
// main, else master, else the user's current branch ("HEAD" when
// detached).
func (r *Repo) DefaultBranch(ctx context.Context) (string, error) {
	if out, err := r.git.run(ctx, r.dir, nil, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"); err == nil {
		if b := strings.TrimSpace(string(out)); b != "" {
			return b, nil
		}
	}
	for _, b := range []string{"main", "master"} {
		if _, err := r.ResolveCommit(ctx, "refs/heads/"+b); err == nil {
			return b, nil
		}
	}
	cur, err := r.CurrentBranch(ctx)
	if err != nil {
		return "", err
	}
	if cur == "" {
		return "HEAD", nil
	}
	return cur, nil
}
