package job

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

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

// WorktreePath is where job id's worktree lives in repo (a fleet
// takeover puts a job's worktree there, not where another machine had it).
func WorktreePath(repo *git.Repo, id string) string { return worktreePath(repo, id) }

// ensureWorktree makes sure the job's linked worktree exists: created
// detached at the base (or on the job's branch once create_branch made
// one); a folder that disappeared is recreated. The user's HEAD, index
// and working tree are never touched; git runs through workspace/git,
// under the repository's ref lock.
func ensureWorktree(ctx context.Context, repo *git.Repo, j store.Job) error {
	err := repo.EnsureLinkedWorktree(ctx, j.WorktreePath, j.BaseCommit, j.Branch)
	switch {
	case errors.Is(err, git.ErrNotWorktree):
		return fmt.Errorf("the job's worktree folder %s exists and is not a worktree: move it away, then resume the job", j.WorktreePath)
	case err != nil:
		return fmt.Errorf("create the job's worktree %s: %w", j.WorktreePath, err)
	}
	return nil
}

// removeWorktree removes a done job's worktree (its branch stays, to be
// applied); a failure is logged, the job is done either way.
func (r *Runner) removeWorktree(ctx context.Context, j store.Job) {
	if err := r.repo.RemoveLinkedWorktree(context.WithoutCancel(ctx), j.WorktreePath); err != nil {
		r.log.Warn("remove the job's worktree", "job", j.ID, "path", j.WorktreePath, "err", err)
	}
}

// lockName is the name of a job's run lock.
func lockName(id string) string { return run.Ref{Kind: run.KindJob, ID: id}.LockName() }

// lock takes the job's run lock, held while a process runs the job and
// released by the kernel when that process dies (even by SIGKILL).
func (r *Runner) lock(id string) (unlock func(), err error) {
	unlock, err = r.locks.Take(lockName(id))
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

// claimed finds a job and claims its run lock; the job is read again
// under the lock, so what another process wrote before counts.
func (r *Runner) claimed(ctx context.Context, ref string) (store.Job, func(), error) {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return j, nil, err
	}
	unlock, err := r.claim(j.ID)
	if err != nil {
		return j, nil, err
	}
	if j, err = r.store.Job(ctx, j.ID); err != nil {
		unlock()
		return j, nil, err
	}
	return j, unlock, nil
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
