package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A branch worktree is a linked worktree of the repository on a branch of
// its own, outside the user's folder, that a run keeps across restarts (a
// swarm's autarch/swarm-ID). Its set-up and its commits change the
// repository's worktree list and refs, so they run under the ref lock
// (refLock) as the pulses' do: a `git worktree prune` or `worktree add`
// racing another one reads a half-made admin directory and fails.

// ErrNotWorktree means a branch worktree's folder exists, is not empty and
// is not a worktree of the repository: nothing was changed in it.
var ErrNotWorktree = errors.New("the folder exists and is not a worktree")

// EnsureBranchWorktree makes sure the linked worktree at path has branch
// checked out: the branch is made at base the first time; a folder that
// vanished is recreated from the branch (a stale registration pruned). The
// user's HEAD, index and files are never touched. A non-empty folder at
// path that is no worktree is ErrNotWorktree (wrapped).
func (r *Repo) EnsureBranchWorktree(ctx context.Context, path, branch, base string) error {
	if isWorktreeDir(path) {
		return nil
	}
	return r.refLock(ctx, func() error {
		if isWorktreeDir(path) {
			return nil // made meanwhile
		}
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "prune"); err != nil {
			return fmt.Errorf("prune stale worktrees: %w", err)
		}
		if entries, err := os.ReadDir(path); err == nil && len(entries) > 0 {
			return fmt.Errorf("%s: %w", path, ErrNotWorktree)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("worktree directory: %w", err)
		}
		args := []string{"worktree", "add", "--quiet", path, branch}
		if ok, err := r.refExists(ctx, "refs/heads/"+branch); err != nil {
			return err
		} else if !ok {
			args = []string{"worktree", "add", "--quiet", "-b", branch, path, base}
		}
		if _, err := r.git.run(ctx, r.dir, nil, args...); err != nil {
			return fmt.Errorf("add worktree %s: %w", path, err)
		}
		return nil
	})
}

// isWorktreeDir reports a linked worktree's folder (its .git is a file).
func isWorktreeDir(path string) bool {
	fi, err := os.Stat(filepath.Join(path, ".git"))
	return err == nil && !fi.IsDir()
}

// CommitPaths stages paths in the worktree at dir (StageAll: nested
// repositories and gitlinks an agent made are left out and returned) and
// commits them on the worktree's branch with message, no hooks run, under
// the ref lock. Nothing changed: no commit, "" returned.
func (r *Repo) CommitPaths(ctx context.Context, dir string, paths []string, message string) (commit string, excluded []Excluded, err error) {
	if len(paths) == 0 {
		return "", nil, nil
	}
	err = r.refLock(ctx, func() error {
		excluded, err = r.StageAll(ctx, dir, "HEAD", paths, nil)
		if err != nil {
			return fmt.Errorf("stage: %w", err)
		}
		if _, err := r.git.run(ctx, dir, nil, "diff", "--cached", "--quiet"); err == nil {
			return nil // nothing changed
		} else if exitCode(err) != 1 {
			return fmt.Errorf("check the staged changes: %w", err)
		}
		if _, err := r.git.run(ctx, dir, strings.NewReader(message), "commit", "--quiet", "--no-verify", "-F", "-"); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		commit, err = r.git.text(ctx, dir, "rev-parse", "HEAD")
		if err != nil {
			return fmt.Errorf("read the commit: %w", err)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	return commit, excluded, nil
}
