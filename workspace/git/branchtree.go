package git

import (
	"context"
	"fmt"
	"strings"
)

// A run's own branch (a swarm's autarch/swarm-ID) is made and moved under
// the repository's ref lock (refLock), as the pulses' are; its worktree is
// a linked worktree (EnsureLinkedWorktree).

// EnsureBranch makes branch at base unless it exists, under the ref lock.
func (r *Repo) EnsureBranch(ctx context.Context, branch, base string) error {
	return r.refLock(ctx, func() error {
		ref := "refs/heads/" + branch
		if ok, err := r.refExists(ctx, ref); err != nil || ok {
			return err
		}
		commit, err := r.ResolveCommit(ctx, base)
		if err != nil {
			return fmt.Errorf("branch %s: base %w", branch, err)
		}
		if _, err := r.git.run(ctx, r.dir, nil, "update-ref", "-m", "autarch: create "+branch, ref, commit, ""); err != nil {
			return fmt.Errorf("create branch %s: %w", branch, err)
		}
		return nil
	})
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
