package git

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Parallel pulses (issue 22) each run in a linked worktree of their own,
// on their own pulse branch, created from the workflow head at the time
// they start. Every worktree creation and removal and every ref update
// they make runs under the repository's ref lock (refLock): an in-process
// mutex plus an flock on <state dir>/refs.lock, so two goroutines or two
// processes never race on .git/config.lock, a worktree's admin directory
// or a branch.

// refLocks are the in-process halves of the ref locks, by common dir (two
// Repo values of one repository share one).
var refLocks sync.Map // string → *sync.Mutex

// refLock serialises fn with every other worktree and ref change made by
// this package on the repository, in this process and in others.
func (r *Repo) refLock(ctx context.Context, fn func() error) error {
	m, _ := refLocks.LoadOrStore(r.commonDir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	defer mu.Unlock()
	if err := os.MkdirAll(r.StateDir(), 0o755); err != nil {
		return fmt.Errorf("ref lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(r.StateDir(), "refs.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("ref lock: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("ref lock: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn()
}

// PulseTree is a parallel pulse's own worktree and branch.
type PulseTree struct {
	w *Workflow
	// ID is the pulse id.
	ID string
	// Branch is the pulse branch (autarch-pulse/<workflow>/<id>).
	Branch string
	// Path is the worktree's absolute path, under the repository's
	// worktree root, outside the user's folder.
	Path string
	// Base is the workflow head the pulse's work applies to.
	Base string
	// Resumed is set when the branch was kept from an earlier run (its
	// recovery or checkpoint commit is checked out).
	Resumed bool

	populate bool // registered without files: populateWorktree after the ref lock
}

// PulseTreePath is where the worktree of a parallel pulse lives.
func (r *Repo) PulseTreePath(workflow, pulseID string) string {
	return filepath.Join(r.pulseTreeDir(workflow), pulseID)
}

// pulseTreeDir holds a workflow's pulse worktrees ("." starts no
// workflow name, so it is never a workflow's worktree).
func (r *Repo) pulseTreeDir(workflow string) string {
	return filepath.Join(r.worktreeRoot, ".pulses", workflow)
}

// OpenPulseTree gives a pulse its worktree: a new branch at the workflow
// head checked out in a new worktree, or — when the branch was kept from an
// earlier run — that branch, in its surviving worktree or a new one.
func (w *Workflow) OpenPulseTree(ctx context.Context, pulseID string) (*PulseTree, error) {
	if err := ValidatePulseID(pulseID); err != nil {
		return nil, err
	}
	r := w.repo
	pt := &PulseTree{w: w, ID: pulseID, Branch: PulseBranch(w.Name, pulseID), Path: r.PulseTreePath(w.Name, pulseID)}
	if _, err := os.Stat(pt.Path); err != nil {
		r.prepared.await(ctx) // a worktree will be made: a prepared one is near
	}
	err := r.refLock(ctx, func() error {
		head, err := w.Head(ctx)
		if err != nil {
			return err
		}
		tip, _, kept, err := w.pulseTip(ctx, pulseID)
		if err != nil {
			return err
		}
		if !kept {
			if _, err := r.git.run(ctx, r.dir, nil, "update-ref", "-m", "autarch: start pulse "+pulseID, w.pulseRef(pulseID), head, ""); err != nil {
				return fmt.Errorf("start pulse %s: %w", pulseID, err)
			}
			pt.Base = head
		} else {
			pt.Resumed = true
			if pt.Base, err = r.git.text(ctx, r.dir, "merge-base", head, tip); err != nil {
				return fmt.Errorf("resume pulse %s: %w", pulseID, err)
			}
		}
		return r.ensurePulseWorktree(ctx, pt)
	})
	if err != nil {
		return nil, err
	}
	if pt.populate {
		if err := r.populateWorktree(ctx, pt.Path); err != nil {
			return nil, fmt.Errorf("add pulse worktree: %w", err)
		}
	}
	if err := w.copyArtifacts(ctx, pt.Path); err != nil {
		return nil, err
	}
	// The submodules preflight checked out in the workflow's worktree
	// (InitSubmodules), checked out here too.
	if _, err := r.initSubmodules(ctx, pt.Path, cmp.Or(w.BaseCommit, "HEAD")); err != nil && !submodulesUnavailable(err) {
		return nil, err
	}
	return pt, nil
}

// copyArtifacts copies the untracked files preflight left in the
// workflow's worktree (RecordArtifacts: installed dependencies, build
// output) into a pulse's new worktree, so that its builds, tests and gates
// run as they would in the workflow's. Paths already there are kept.
// Copies, not links: a pulse rebuilding them must not change the
// workflow's.
func (w *Workflow) copyArtifacts(ctx context.Context, dst string) error {
	artifacts, err := w.Artifacts(ctx)
	if err != nil {
		return err
	}
	for _, a := range artifacts {
		rel := filepath.FromSlash(strings.TrimSuffix(a, "/"))
		to := filepath.Join(dst, rel)
		if _, err := os.Lstat(to); err == nil {
			continue
		}
		if err := copyTree(ctx, filepath.Join(w.Worktree, rel), to); err != nil {
			return fmt.Errorf("copy preflight's %s into the pulse worktree: %w", a, err)
		}
	}
	return nil
}

// copyTree copies a file, symlink or directory tree, keeping modes and
// symlinks as they are.
func copyTree(ctx context.Context, from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == from {
				return nil // gone since preflight
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case d.Type().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		}
		return nil // sockets, devices: not build artifacts
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ensurePulseWorktree checks pt's branch out at pt.Path, reusing a live
// worktree already there and dropping a stale registration. Under refLock.
func (r *Repo) ensurePulseWorktree(ctx context.Context, pt *PulseTree) error {
	list, err := r.Worktrees(ctx)
	if err != nil {
		return err
	}
	for _, wt := range list {
		if !samePath(wt.Path, pt.Path) && wt.Path != pt.Path {
			continue
		}
		if _, err := os.Stat(pt.Path); err == nil && wt.Branch == "refs/heads/"+pt.Branch && !wt.Prunable {
			return nil
		}
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", wt.Path); err != nil {
			if _, err := r.git.run(ctx, r.dir, nil, "worktree", "prune"); err != nil {
				return fmt.Errorf("drop stale worktree %s: %w", pt.Path, err)
			}
		}
	}
	if err := os.RemoveAll(pt.Path); err != nil {
		return fmt.Errorf("pulse worktree %s: %w", pt.Path, err)
	}
	if err := os.MkdirAll(filepath.Dir(pt.Path), 0o755); err != nil {
		return fmt.Errorf("pulse worktree directory: %w", err)
	}
	if r.claimPrepared(ctx, pt.Path, pt.Branch) {
		return nil
	}
	if err := r.registerWorktree(ctx, pt.Path, pt.Branch); err != nil {
		return fmt.Errorf("add pulse worktree: %w", err)
	}
	pt.populate = true
	return nil
}

func (pt *PulseTree) run(ctx context.Context, args ...string) ([]byte, error) {
	return pt.w.repo.git.run(ctx, pt.Path, nil, args...)
}

func (pt *PulseTree) text(ctx context.Context, args ...string) (string, error) {
	return pt.w.repo.git.text(ctx, pt.Path, args...)
}

func (pt *PulseTree) ref() string { return pt.w.pulseRef(pt.ID) }

// stage writes the worktree's state (but the workflow's recorded
// artifacts, nested repositories and gitlinks Base does not have) to its
// index and returns the tree and what it left out.
func (pt *PulseTree) stage(ctx context.Context) (string, []Excluded, error) {
	artifacts, err := pt.w.Artifacts(ctx)
	if err != nil {
		return "", nil, err
	}
	return pt.w.repo.stageIn(ctx, pt.Path, pt.Base, artifacts, nil)
}

func (pt *PulseTree) commitTree(ctx context.Context, tree, parent, message string) (string, error) {
	return pt.w.repo.commitTreeIn(ctx, pt.Path, tree, parent, message)
}

// Commit squashes the pulse's work into one Conventional Commit on top of
// Base and points the pulse branch (checked out in the worktree) at it. The
// workflow branch is not touched: Land does that, in plan order.
func (pt *PulseTree) Commit(ctx context.Context, summary string) (Checkpoint, error) {
	sum, err := ParseSummary(summary)
	if err != nil {
		return Checkpoint{}, err
	}
	tree, excluded, err := pt.stage(ctx)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pt.ID, err)
	}
	commit, err := pt.commitTree(ctx, tree, pt.Base, sum.Message())
	if err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pt.ID, err)
	}
	// The index holds commit's tree and the work tree what was staged: no
	// reset unless an exclusion may cover tracked files (as CompletePulse).
	if err := pt.moveBranch(ctx, commit, "autarch: checkpoint of pulse "+pt.ID, len(excluded) > 0); err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pt.ID, err)
	}
	cp, err := pt.checkpoint(ctx, commit)
	cp.Excluded = excluded
	return cp, err
}

func (pt *PulseTree) checkpoint(ctx context.Context, commit string) (Checkpoint, error) {
	stats, err := pt.w.repo.DiffStats(ctx, pt.Base, commit)
	if err != nil {
		return Checkpoint{}, err
	}
	baseTree, err := pt.text(ctx, "rev-parse", pt.Base+"^{tree}")
	if err != nil {
		return Checkpoint{}, err
	}
	tree, err := pt.text(ctx, "rev-parse", commit+"^{tree}")
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Commit: commit, Parent: pt.Base, PulseBranch: pt.Branch, Empty: tree == baseTree, Stats: stats}, nil
}

// moveBranch points the checked-out pulse branch at commit and, with
// reset, the worktree's index and files with it.
func (pt *PulseTree) moveBranch(ctx context.Context, commit, msg string, reset bool) error {
	return pt.w.repo.refLock(ctx, func() error {
		if _, err := pt.run(ctx, "update-ref", "-m", msg, pt.ref(), commit); err != nil {
			return err
		}
		if !reset {
			return nil
		}
		_, err := pt.run(ctx, "reset", "--hard", "--quiet", commit)
		return err
	})
}

// Recovery commits uncommitted work of a failed or stopped pulse on its
// kept branch (a recovery checkpoint) and removes the worktree; the branch
// stays for OpenPulseTree to resume. Call it with a context that is not
// cancelled.
func (pt *PulseTree) Recovery(ctx context.Context, reason string) (Checkpoint, error) {
	tip, tipTree, ok, err := pt.w.pulseTip(ctx, pt.ID)
	if err != nil {
		return Checkpoint{}, err
	}
	if !ok {
		return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: branch %s does not exist", pt.ID, pt.Branch)
	}
	cp := Checkpoint{Commit: tip, Parent: pt.Base, PulseBranch: pt.Branch}
	if _, err := os.Stat(pt.Path); err == nil {
		tree, excluded, err := pt.stage(ctx)
		if err != nil {
			return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pt.ID, err)
		}
		cp.Excluded = excluded
		if tree != tipTree {
			if cp.Commit, err = pt.commitTree(ctx, tree, tip, recoveryMessage(pt.ID, reason)); err != nil {
				return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pt.ID, err)
			}
			if err := pt.moveBranch(ctx, cp.Commit, "autarch: recovery checkpoint of pulse "+pt.ID, true); err != nil {
				return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pt.ID, err)
			}
			cp.IsRecoveryCheckpoint = true
		}
	}
	if cp.Stats, err = pt.w.repo.DiffStats(ctx, pt.Base, cp.Commit); err != nil {
		return Checkpoint{}, err
	}
	return cp, pt.Remove(ctx)
}

// Remove removes the pulse's worktree (its branch stays).
func (pt *PulseTree) Remove(ctx context.Context) error {
	r := pt.w.repo
	return r.refLock(ctx, func() error { return r.removePulseWorktree(ctx, pt.Path) })
}

func (r *Repo) removePulseWorktree(ctx context.Context, path string) error {
	if _, err := r.git.run(ctx, r.dir, nil, "worktree", "remove", "--force", path); err != nil && !strings.Contains(err.Error(), "is not a working tree") {
		return fmt.Errorf("remove pulse worktree %s: %w", path, err)
	}
	return nil
}

// Conflict is a pulse whose change does not apply on the workflow head.
type Conflict struct {
	Pulse string
	// Files are the paths both sides changed incompatibly.
	Files []string
	// Head and Pulse are, per file, the workflow head's and the pulse's
	// changes to it since the pulse's base (unified diffs).
	HeadSide  map[string]string
	PulseSide map[string]string
}

func (c *Conflict) Error() string {
	return fmt.Sprintf("pulse %s conflicts with the workflow head in %s", c.Pulse, strings.Join(c.Files, ", "))
}

// Sides shows both sides of every conflicting file, for a human.
func (c *Conflict) Sides() string {
	var b strings.Builder
	for _, f := range c.Files {
		fmt.Fprintf(&b, "=== %s — on the workflow head:\n%s\n=== %s — in pulse %s:\n%s\n", f, c.HeadSide[f], f, c.Pulse, c.PulseSide[f])
	}
	return b.String()
}

// Rebase puts the pulse's committed work on the workflow's current head
// when the head moved since the pulse started: a three-way merge of trees
// (git merge-tree), committed as the pulse's one commit on the head, the
// branch and worktree moved to it. rebased is false when the pulse already
// applies to the head. A change that does not merge cleanly is a
// *Conflict, and nothing moves.
func (pt *PulseTree) Rebase(ctx context.Context) (rebased bool, err error) {
	head, err := pt.w.Head(ctx)
	if err != nil {
		return false, err
	}
	if head == pt.Base {
		return false, nil
	}
	tip, _, ok, err := pt.w.pulseTip(ctx, pt.ID)
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("rebase pulse %s: branch %s does not exist", pt.ID, pt.Branch)
	}
	out, err := pt.run(ctx, "merge-tree", "--write-tree", "--name-only", "--no-messages", head, tip)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	switch exitCode(err) {
	case -1:
		if err != nil {
			return false, fmt.Errorf("rebase pulse %s: %w", pt.ID, err)
		}
	case 1:
		return false, pt.conflict(ctx, head, tip, lines[1:])
	default:
		return false, fmt.Errorf("rebase pulse %s: %w", pt.ID, err)
	}
	msg, err := pt.text(ctx, "log", "-1", "--format=%B", tip)
	if err != nil {
		return false, err
	}
	commit, err := pt.commitTree(ctx, lines[0], head, msg+"\n")
	if err != nil {
		return false, fmt.Errorf("rebase pulse %s: %w", pt.ID, err)
	}
	if err := pt.moveBranch(ctx, commit, "autarch: rebase pulse "+pt.ID, true); err != nil {
		return false, fmt.Errorf("rebase pulse %s: %w", pt.ID, err)
	}
	pt.Base = head
	return true, nil
}

// Applies reports, without moving anything, whether the pulse's committed
// work still merges onto the workflow head: nil, or a *Conflict.
func (pt *PulseTree) Applies(ctx context.Context) error {
	head, err := pt.w.Head(ctx)
	if err != nil || head == pt.Base {
		return err
	}
	tip, _, ok, err := pt.w.pulseTip(ctx, pt.ID)
	if err != nil || !ok {
		return err
	}
	out, err := pt.run(ctx, "merge-tree", "--write-tree", "--name-only", "--no-messages", head, tip)
	if exitCode(err) == 1 {
		return pt.conflict(ctx, head, tip, strings.Split(strings.TrimRight(string(out), "\n"), "\n")[1:])
	}
	return err
}

// conflict describes the conflicting files with both sides' changes.
func (pt *PulseTree) conflict(ctx context.Context, head, tip string, files []string) error {
	c := &Conflict{Pulse: pt.ID, HeadSide: map[string]string{}, PulseSide: map[string]string{}}
	for _, f := range files {
		if f == "" {
			continue
		}
		c.Files = append(c.Files, f)
		h, err := pt.run(ctx, "diff", "--no-ext-diff", pt.Base, head, "--", f)
		if err != nil {
			return fmt.Errorf("pulse %s: conflict diff of %s: %w", pt.ID, f, err)
		}
		p, err := pt.run(ctx, "diff", "--no-ext-diff", pt.Base, tip, "--", f)
		if err != nil {
			return fmt.Errorf("pulse %s: conflict diff of %s: %w", pt.ID, f, err)
		}
		c.HeadSide[f], c.PulseSide[f] = clip(string(h), 4000), clip(string(p), 4000)
	}
	return c
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n… (cut)"
}

// Land fast-forwards the workflow branch to the pulse's commit (which must
// sit on the current head: Rebase first), deletes the pulse branch,
// removes the pulse worktree and resets the workflow's own worktree to the
// new head. It returns the landed checkpoint.
func (pt *PulseTree) Land(ctx context.Context) (Checkpoint, error) {
	w, r := pt.w, pt.w.repo
	tip, _, ok, err := w.pulseTip(ctx, pt.ID)
	if err != nil {
		return Checkpoint{}, err
	}
	if !ok {
		return Checkpoint{}, fmt.Errorf("land pulse %s: branch %s does not exist", pt.ID, pt.Branch)
	}
	parent, err := pt.text(ctx, "rev-parse", tip+"^")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("land pulse %s: %w", pt.ID, err)
	}
	cp, err := pt.checkpoint(ctx, tip)
	if err != nil {
		return Checkpoint{}, err
	}
	msg := "autarch: land pulse " + pt.ID
	err = r.refLock(ctx, func() error {
		// Checked first so that a refused landing leaves the worktree; the
		// transaction below checks again.
		if head, err := w.Head(ctx); err != nil {
			return err
		} else if head != parent {
			return fmt.Errorf("land pulse %s: its commit sits on %.12s, but the workflow head is %.12s: rebase first", pt.ID, parent, head)
		}
		if err := r.removePulseWorktree(ctx, pt.Path); err != nil {
			return err
		}
		tx := fmt.Sprintf("update %s %s %s\ndelete %s %s\n", w.ref(), tip, parent, pt.ref(), tip)
		if _, err := r.git.run(ctx, r.dir, strings.NewReader(tx), "update-ref", "-m", msg, "--stdin"); err != nil {
			return fmt.Errorf("land pulse %s: the workflow head is no longer %.12s (rebase first): %w", pt.ID, parent, err)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.rest(ctx, tip)
	})
	if err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}

// Discard removes the pulse's worktree and deletes its branch (a pulse
// re-run from the new head after a conflict).
func (pt *PulseTree) Discard(ctx context.Context) error {
	r := pt.w.repo
	return r.refLock(ctx, func() error {
		if err := r.removePulseWorktree(ctx, pt.Path); err != nil {
			return err
		}
		if _, err := r.git.run(ctx, r.dir, nil, "update-ref", "-m", "autarch: discard pulse "+pt.ID, "-d", pt.ref()); err != nil {
			return fmt.Errorf("discard pulse %s: %w", pt.ID, err)
		}
		return nil
	})
}

// ChangedPaths are the files the pulse changed against its base, in its
// worktree (for the quality gates).
func (pt *PulseTree) ChangedPaths(ctx context.Context) ([]string, error) {
	return pt.w.repo.ChangedPaths(ctx, pt.Path, pt.Base)
}

// PrunePulseTrees removes every pulse worktree of the workflow that is
// left (after a crash); their branches stay.
func (w *Workflow) PrunePulseTrees(ctx context.Context) error {
	r := w.repo
	return r.refLock(ctx, func() error {
		list, err := r.Worktrees(ctx)
		if err != nil {
			return err
		}
		var errs []error
		for _, wt := range list {
			if isUnder(wt.Path, r.pulseTreeDir(w.Name)) {
				errs = append(errs, r.removePulseWorktree(ctx, wt.Path))
			}
		}
		if _, err := r.git.run(ctx, r.dir, nil, "worktree", "prune"); err != nil {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// PulseTreeAt reopens the pulse tree of a kept branch (for recovery after a
// crash), without creating a worktree.
func (w *Workflow) PulseTreeAt(ctx context.Context, pulseID string) (*PulseTree, error) {
	head, err := w.Head(ctx)
	if err != nil {
		return nil, err
	}
	tip, _, ok, err := w.pulseTip(ctx, pulseID)
	if err != nil || !ok {
		return nil, errors.Join(err, fmt.Errorf("pulse %s has no branch", pulseID))
	}
	base, err := w.repo.git.text(ctx, w.repo.dir, "merge-base", head, tip)
	if err != nil {
		return nil, err
	}
	return &PulseTree{w: w, ID: pulseID, Branch: PulseBranch(w.Name, pulseID), Path: w.repo.PulseTreePath(w.Name, pulseID), Base: base, Resumed: true}, nil
}

// Tip is the commit at the tip of the pulse branch.
func (pt *PulseTree) Tip(ctx context.Context) (string, error) {
	tip, _, ok, err := pt.w.pulseTip(ctx, pt.ID)
	if err == nil && !ok {
		err = fmt.Errorf("pulse %s: branch %s does not exist", pt.ID, pt.Branch)
	}
	return tip, err
}

// HasPulseBranch reports whether the pulse's branch exists.
func (w *Workflow) HasPulseBranch(ctx context.Context, pulseID string) (bool, error) {
	_, _, ok, err := w.pulseTip(ctx, pulseID)
	return ok, err
}

// Landed reports whether commit is on the workflow branch.
func (w *Workflow) Landed(ctx context.Context, commit string) (bool, error) {
	_, err := w.repo.git.run(ctx, w.repo.dir, nil, "merge-base", "--is-ancestor", commit, w.ref())
	return yesNo(err)
}
