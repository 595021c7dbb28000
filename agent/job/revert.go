package job

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Reverted is what Revert undid on a job's branch.
type Reverted struct {
	Job    string `json:"job"`
	Branch string `json:"branch"`
	// Commits are the revert commits made, in branch order (newest
	// reverted first).
	Commits []git.Revert `json:"commits"`
	Message string       `json:"message"`
}

// Revert undoes the job's commits from commit (a commit id or any
// revision naming one on the job's branch) to the branch tip, as revert
// commits on the job's branch (git.Repo.RevertCommits: all or none, under
// the ref lock; history is kept), and resets the job's own worktree to the
// new tip. The user's branch is never touched. The job must not be running
// and its worktree must have no uncommitted changes to tracked files.
func (r *Runner) Revert(ctx context.Context, ref, commit string) (Reverted, error) {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return Reverted{}, err
	}
	unlock, err := r.locks.Take(lockName(j.ID))
	if run.IsLocked(err) {
		return Reverted{}, fmt.Errorf("job %s is running in another autarch process: stop it first (autarch stop %s), then revert: %w", j.Name, j.Name, err)
	}
	if err != nil {
		return Reverted{}, err
	}
	defer unlock()
	switch {
	case j.Status == store.JobRunning:
		return Reverted{}, fmt.Errorf("job %s is running: stop it first (autarch stop %s), then revert", j.Name, j.Name)
	case j.Branch == "":
		return Reverted{}, fmt.Errorf("job %s has no branch yet: there is nothing to revert", j.Name)
	}
	branchRef := "refs/heads/" + j.Branch
	id, err := r.repo.ResolveCommit(ctx, commit)
	if err != nil {
		return Reverted{}, fmt.Errorf("commit %q: %w", commit, err)
	}
	onBranch, err := r.repo.IsAncestor(ctx, id, branchRef)
	if err != nil {
		return Reverted{}, err
	}
	inBase, err := r.repo.IsAncestor(ctx, id, j.BaseCommit)
	if err != nil {
		return Reverted{}, err
	}
	if !onBranch || inBase {
		return Reverted{}, fmt.Errorf("commit %.12s is not one of job %s's commits on %s (git log %.12s..%s lists them)", id, j.Name, j.Branch, j.BaseCommit, j.Branch)
	}
	if err := ensureWorktree(ctx, r.repo, j); err != nil {
		return Reverted{}, err
	}
	list, err := r.repo.Git(ctx, j.WorktreePath, nil, "rev-list", "--first-parent", id+"^.."+branchRef)
	if err != nil {
		return Reverted{}, fmt.Errorf("list job %s's commits: %w", j.Name, err)
	}
	made, err := r.repo.RevertInWorktree(ctx, j.WorktreePath, j.Branch, strings.Fields(string(list)))
	var conflict *git.RevertConflict
	if errors.As(err, &conflict) {
		return Reverted{}, fmt.Errorf("%w (nothing was changed)", err)
	}
	if err != nil {
		return Reverted{}, fmt.Errorf("job %s: %w", j.Name, err)
	}
	msg := fmt.Sprintf("reverted %d commit(s) of job %s on %s", len(made), j.Name, j.Branch)
	if j.Status == store.JobDone {
		r.removeWorktree(ctx, j) // as a done job leaves it
		msg += "; apply the job again to bring the revert to your branch"
	}
	return Reverted{Job: j.Name, Branch: j.Branch, Commits: made, Message: msg}, nil
}
