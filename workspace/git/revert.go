package git

import (
	"context"
	"fmt"
	"strings"
)

// RevertTrailer names, in a revert commit's message, the commit it
// reverts: a revert interrupted half way (kill -9) is finished by making
// only the reverts the branch does not carry yet.
const RevertTrailer = "Autarch-Reverts"

// RevertConflict is a commit whose revert no longer merges with the
// branch head: later commits changed the same lines.
type RevertConflict struct {
	Commit string
	// Files are the paths whose revert conflicts.
	Files []string
}

func (c *RevertConflict) Error() string {
	return fmt.Sprintf("the revert of %.12s conflicts with later changes in %s", c.Commit, strings.Join(c.Files, ", "))
}

// RevertOptions tune RevertCommits.
type RevertOptions struct {
	// Since is the branch head when the revert was first asked for: the
	// revert commits already made since then (RevertTrailer) are not made
	// again. "": the branch's current head (nothing made yet).
	Since string
	// AfterCommit, when set, is called after each revert commit is on the
	// branch with how many are (tests die there to prove a revert is
	// finished on the next call).
	AfterCommit func(done int)
}

// Revert is one revert commit on a branch.
type Revert struct {
	// Commit is the revert commit.
	Commit string `json:"commit"`
	// Reverts is the commit it undoes.
	Reverts string `json:"reverts"`
}

// RevertCommits undoes commits (in the order given: newest first) on
// branch as revert commits, one per commit, then moves the branch to the
// last of them in one compare-and-swap ref update under the repository's
// ref lock: the branch has all of them or none; history is kept and
// nothing is rewritten. A revert is a three-way merge of trees
// (git merge-tree: base the commit, ours the branch head, theirs the
// commit's parent tree), so neither an index nor a work tree is used;
// dir is a work tree of the repository (the run's own worktree) that git
// runs in. Commits already reverted since opts.Since are skipped, so the
// call is idempotent. A commit whose revert no longer merges is a
// *RevertConflict, and the branch does not move. It returns
// every revert commit of the commits since opts.Since, in branch order.
func (r *Repo) RevertCommits(ctx context.Context, dir, branch string, commits []string, opts RevertOptions) ([]Revert, error) {
	ref := "refs/heads/" + branch
	var out []Revert
	err := r.refLock(ctx, func() error {
		head, err := r.git.text(ctx, dir, "rev-parse", "--verify", ref+"^{commit}")
		if err != nil {
			return fmt.Errorf("revert on %s: %w", branch, err)
		}
		since := opts.Since
		if since == "" {
			since = head
		}
		out, err = r.revertsSince(ctx, dir, since, head)
		if err != nil {
			return err
		}
		done := map[string]bool{}
		for _, rv := range out {
			done[rv.Reverts] = true
		}
		cur := head
		for _, c := range commits {
			if done[c] {
				continue
			}
			next, err := r.revertOne(ctx, dir, cur, c)
			if err != nil {
				return err
			}
			out = append(out, Revert{Commit: next, Reverts: c})
			cur = next
			if opts.AfterCommit != nil {
				opts.AfterCommit(len(out))
			}
		}
		if cur == head {
			return nil
		}
		if _, err := r.git.run(ctx, dir, nil, "update-ref", "-m", "autarch: revert", ref, cur, head); err != nil {
			return fmt.Errorf("revert: move %s: %w", branch, err)
		}
		return nil
	})
	return out, err
}

// revertsSince lists the revert commits (RevertTrailer) on since..head,
// oldest first.
func (r *Repo) revertsSince(ctx context.Context, dir, since, head string) ([]Revert, error) {
	if since == head {
		return nil, nil
	}
	if _, err := r.git.run(ctx, dir, nil, "merge-base", "--is-ancestor", since, head); err != nil {
		if exitCode(err) == 1 {
			return nil, fmt.Errorf("revert: %.12s is no longer under the branch head %.12s: the branch was rewritten", since, head)
		}
		return nil, fmt.Errorf("revert: %w", err)
	}
	log, err := r.git.text(ctx, dir, "log", "--reverse", "--first-parent", "--format=%H%x00%(trailers:key="+RevertTrailer+",valueonly)%x01", since+".."+head)
	if err != nil {
		return nil, fmt.Errorf("revert: read the branch: %w", err)
	}
	var out []Revert
	for _, rec := range strings.Split(log, "\x01") {
		commit, reverts, ok := strings.Cut(strings.TrimSpace(rec), "\x00")
		if ok && strings.TrimSpace(reverts) != "" {
			out = append(out, Revert{Commit: commit, Reverts: strings.TrimSpace(reverts)})
		}
	}
	return out, nil
}

// revertOne commits the revert of commit on head (the branch does not
// move).
func (r *Repo) revertOne(ctx context.Context, dir, head, commit string) (string, error) {
	if _, err := r.git.run(ctx, dir, nil, "merge-base", "--is-ancestor", commit, head); err != nil {
		if exitCode(err) == 1 {
			return "", fmt.Errorf("revert %.12s: it is not on the branch", commit)
		}
		return "", fmt.Errorf("revert %.12s: %w", commit, err)
	}
	info, err := r.git.text(ctx, dir, "log", "-1", "--format=%P%x00%s", commit)
	if err != nil {
		return "", fmt.Errorf("revert %.12s: %w", commit, err)
	}
	parents, subject, _ := strings.Cut(info, "\x00")
	parent, _, _ := strings.Cut(parents, " ")
	if parent == "" {
		return "", fmt.Errorf("revert %.12s: a root commit cannot be reverted", commit)
	}
	// theirs: the parent's tree on top of commit, so that the merge base of
	// head and theirs is commit itself.
	theirs, err := r.commitTreeIn(ctx, dir, parent+"^{tree}", commit, "autarch: revert of "+commit)
	if err != nil {
		return "", fmt.Errorf("revert %.12s: %w", commit, err)
	}
	out, err := r.git.run(ctx, dir, nil, "merge-tree", "--write-tree", "--name-only", "--no-messages", head, theirs)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	switch exitCode(err) {
	case -1:
		if err != nil {
			return "", fmt.Errorf("revert %.12s: %w", commit, err)
		}
	case 1:
		var files []string
		for _, f := range lines[1:] {
			if f != "" {
				files = append(files, f)
			}
		}
		return "", &RevertConflict{Commit: commit, Files: files}
	default:
		return "", fmt.Errorf("revert %.12s: %w", commit, err)
	}
	msg := fmt.Sprintf("Revert %q\n\nThis reverts commit %s.\n\n%s: %s\n", subject, commit, RevertTrailer, commit)
	next, err := r.commitTreeIn(ctx, dir, lines[0], head, msg)
	if err != nil {
		return "", fmt.Errorf("revert %.12s: %w", commit, err)
	}
	return next, nil
}

// IsAncestor reports whether commit a is in the history of b (a branch,
// tag or commit).
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.git.run(ctx, r.dir, nil, "merge-base", "--is-ancestor", a, b)
	return yesNo(err)
}

// Revert undoes commits (newest first) on the workflow branch as revert
// commits (Repo.RevertCommits, in the workflow's worktree), then puts the
// worktree at rest on the new head. Pulse branches of ids in drop (kept
// recovery branches of pulses being rewound) are deleted first.
func (w *Workflow) Revert(ctx context.Context, commits []string, drop []string, opts RevertOptions) ([]Revert, error) {
	if err := w.dropPulseBranches(ctx, drop); err != nil {
		return nil, err
	}
	out, err := w.repo.RevertCommits(ctx, w.Worktree, w.Branch, commits, opts)
	if err != nil {
		return out, err
	}
	return out, w.ResetWorktree(ctx)
}

// dropPulseBranches puts the worktree at rest and deletes the pulse
// branches of ids that exist.
func (w *Workflow) dropPulseBranches(ctx context.Context, ids []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := w.state(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, _, ok, err := w.pulseTip(ctx, id); err != nil {
			return err
		} else if !ok {
			continue
		}
		if st.headRef != w.ref() {
			if err := w.rest(ctx, st.head); err != nil {
				return err
			}
			st.headRef = w.ref()
		}
		if _, err := w.run(ctx, nil, "update-ref", "-m", "autarch: drop pulse branch "+id, "-d", w.pulseRef(id)); err != nil {
			return fmt.Errorf("drop pulse branch %s: %w", id, err)
		}
	}
	return nil
}

// DiffCommits is the diff from commit from to commit to as they are (not
// from their merge base, as Diff): after a revert, the diff from the new
// head to the old shows, on its new side, the lines the revert undid.
func (r *Repo) DiffCommits(ctx context.Context, from, to string) (*Diff, error) {
	d := &Diff{Base: from, Head: to}
	return d, r.fillDiff(ctx, d, []string{from, to})
}

// RevertInWorktree reverts commits (newest first, RevertCommits) on branch,
// which the linked worktree at dir (a job's, a swarm's) has checked out,
// and resets that worktree — only it — to the new tip. A worktree with
// uncommitted changes to tracked files is refused, before anything moves.
func (r *Repo) RevertInWorktree(ctx context.Context, dir, branch string, commits []string) ([]Revert, error) {
	out, err := r.git.run(ctx, dir, nil, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=all")
	if err != nil {
		return nil, fmt.Errorf("worktree status: %w", err)
	}
	st, err := parseStatus(string(out))
	if err != nil {
		return nil, fmt.Errorf("worktree status: %w", err)
	}
	if changed := st.TrackedChanges(); len(changed) > 0 {
		return nil, fmt.Errorf("the worktree %s has uncommitted changes to %s: commit or discard them, then revert", dir, strings.Join(changed, ", "))
	}
	made, err := r.RevertCommits(ctx, dir, branch, commits, RevertOptions{})
	if err != nil {
		return nil, err
	}
	if _, err := r.git.run(ctx, dir, nil, "reset", "--hard", "--quiet", "HEAD"); err != nil {
		return made, fmt.Errorf("reset the worktree %s to the new tip: %w", dir, err)
	}
	return made, nil
}
