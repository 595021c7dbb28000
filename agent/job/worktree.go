package job

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// worktreePath is where a job's linked worktree lives: beside the
// workflows' worktrees, in the repository's state, outside the user's
// folder.
func worktreePath(repo *git.Repo, id string) string {
	return filepath.Join(repo.WorktreeRoot(), "job-"+id[:8])
}

// ensureWorktree makes sure the job's linked worktree exists: created
// detached at the base (or on the job's branch once create_branch made
// one); a folder that disappeared is recreated. The user's HEAD, index
// and working tree are never touched.
func ensureWorktree(ctx context.Context, repo *git.Repo, j store.Job) error {
	list, err := repo.Worktrees(ctx)
	if err != nil {
		return err
	}
	for _, w := range list {
		if samePath(w.Path, j.WorktreePath) && !w.Prunable {
			if _, err := os.Stat(j.WorktreePath); err == nil {
				return nil
			}
		}
	}
	if _, err := repo.Git(ctx, repo.Top(), nil, "worktree", "prune"); err != nil {
		return fmt.Errorf("prune stale worktrees: %w", err)
	}
	if entries, err := os.ReadDir(j.WorktreePath); err == nil && len(entries) > 0 {
		return fmt.Errorf("the job's worktree folder %s exists and is not a worktree: move it away, then resume the job", j.WorktreePath)
	}
	if err := os.MkdirAll(filepath.Dir(j.WorktreePath), 0o755); err != nil {
		return fmt.Errorf("worktree directory: %w", err)
	}
	args := []string{"worktree", "add", "--quiet", "--detach", j.WorktreePath, j.BaseCommit}
	if j.Branch != "" {
		args = []string{"worktree", "add", "--quiet", j.WorktreePath, j.Branch}
	}
	if _, err := repo.Git(ctx, repo.Top(), nil, args...); err != nil {
		return fmt.Errorf("create the job's worktree %s: %w", j.WorktreePath, err)
	}
	return nil
}

// removeWorktree removes a done job's worktree (its branch stays, to be
// applied); a failure is logged, the job is done either way.
func (r *Runner) removeWorktree(ctx context.Context, j store.Job) {
	if _, err := r.repo.Git(context.WithoutCancel(ctx), r.repo.Top(), nil, "worktree", "remove", "--force", j.WorktreePath); err != nil {
		r.log.Warn("remove the job's worktree", "job", j.ID, "path", j.WorktreePath, "err", err)
	}
}

// defaultBranch is the repository's default branch: origin's HEAD, else
// main, else master, else the user's current branch.
func defaultBranch(ctx context.Context, repo *git.Repo) (string, error) {
	if out, err := repo.Git(ctx, repo.Top(), nil, "symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"); err == nil {
		if b := strings.TrimSpace(string(out)); b != "" {
			return b, nil
		}
	}
	for _, b := range []string{"main", "master"} {
		if _, err := repo.ResolveCommit(ctx, "refs/heads/"+b); err == nil {
			return b, nil
		}
	}
	cur, err := repo.CurrentBranch(ctx)
	if err != nil {
		return "", err
	}
	if cur == "" {
		return "HEAD", nil
	}
	return cur, nil
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// lock takes the job's run lock, held while a process runs the job and
// released by the kernel when that process dies (even by SIGKILL).
func (r *Runner) lock(id string) (unlock func(), err error) {
	unlock, err = r.locks.Take(run.Ref{Kind: run.KindJob, ID: id}.LockName())
	if run.IsLocked(err) {
		return nil, fmt.Errorf("%w: %s", errLocked, id)
	}
	return unlock, err
}

// hold takes a job's run lock for the Run that follows (claim).
func (r *Runner) hold(id string) error {
	unlock, err := r.lock(id)
	if err != nil {
		return err
	}
	r.held.Put(id, unlock)
	return nil
}

// claim is the run lock Start or Resume holds for the job, else a new one.
func (r *Runner) claim(id string) (unlock func(), err error) {
	if unlock, ok := r.held.Claim(id); ok {
		return unlock, nil
	}
	return r.lock(id)
}

// Release lets go of the run lock Start took for the Run that follows,
// when the job will run in another process instead.
func (r *Runner) Release(id string) { r.release(id) }

// release lets go of a held run lock that no Run will claim.
func (r *Runner) release(id string) {
	if unlock, err := r.claim(id); err == nil {
		unlock()
	}
}

// errLocked means another live process runs the job.
var errLocked = errors.New("the job is running in another autarch process")
