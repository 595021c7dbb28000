package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Checkpoint is the commit that ended a pulse.
type Checkpoint struct {
	// Commit is the checkpoint (or recovery) commit; for a recovery with
	// nothing uncommitted, the pulse branch's tip.
	Commit string
	// Parent is the workflow head the pulse started from.
	Parent string
	// PulseBranch is the pulse's branch: deleted after a completed pulse,
	// kept after a recovery checkpoint.
	PulseBranch string
	// IsRecoveryCheckpoint is set when a failed or stopped pulse had
	// uncommitted work, now committed on the kept pulse branch.
	IsRecoveryCheckpoint bool
	// Empty is set when the commit changes nothing (an empty pulse).
	Empty bool
	// Stats are the pulse's changes against the workflow head it started
	// from.
	Stats Stats
	// Excluded are the nested repositories and gitlinks the agent created
	// that the commit leaves out (Excluded.Message says why and what to
	// do); they stay in the worktree.
	Excluded []Excluded
}

// artifactsFile holds, in the worktree's private git directory, the
// untracked paths present after preflight (NUL-separated).
const artifactsFile = "autarch-artifacts"

// wtState is where the worktree stands.
type wtState struct {
	head     string // workflow branch tip
	headTree string
	headRef  string // what the worktree's HEAD points at ("HEAD" if detached)
}

func (w *Workflow) run(ctx context.Context, stdin *strings.Reader, args ...string) ([]byte, error) {
	if stdin == nil {
		return w.repo.git.run(ctx, w.Worktree, nil, args...)
	}
	return w.repo.git.run(ctx, w.Worktree, stdin, args...)
}

func (w *Workflow) text(ctx context.Context, args ...string) (string, error) {
	return w.repo.git.text(ctx, w.Worktree, args...)
}

func (w *Workflow) ref() string { return "refs/heads/" + w.Branch }

func (w *Workflow) pulseRef(id string) string { return "refs/heads/" + PulseBranch(w.Name, id) }

// state reads the workflow head, its tree and the worktree's HEAD in one
// process.
func (w *Workflow) state(ctx context.Context) (wtState, error) {
	out, err := w.text(ctx, "rev-parse", w.ref(), w.ref()+"^{tree}", "--symbolic-full-name", "HEAD")
	if err != nil {
		return wtState{}, fmt.Errorf("workflow %s: read state: %w", w.Name, err)
	}
	f := strings.Split(out, "\n")
	if len(f) != 3 {
		return wtState{}, fmt.Errorf("workflow %s: unexpected rev-parse output %q", w.Name, out)
	}
	return wtState{head: f[0], headTree: f[1], headRef: f[2]}, nil
}

// pulseTip returns the commit and tree of a pulse branch; ok is false when
// the branch does not exist.
func (w *Workflow) pulseTip(ctx context.Context, id string) (commit, tree string, ok bool, err error) {
	out, err := w.text(ctx, "rev-parse", "--verify", "--quiet", w.pulseRef(id)+"^{commit}")
	if exitCode(err) == 1 {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("pulse %s: %w", id, err)
	}
	tree, err = w.text(ctx, "rev-parse", out+"^{tree}")
	if err != nil {
		return "", "", false, fmt.Errorf("pulse %s: %w", id, err)
	}
	return out, tree, true, nil
}

// lockPulse checks pulseID, takes the worktree's lock and reads its
// state; the caller holds the lock until it calls unlock.
func (w *Workflow) lockPulse(ctx context.Context, pulseID string) (st wtState, unlock func(), err error) {
	if err := ValidatePulseID(pulseID); err != nil {
		return wtState{}, nil, err
	}
	w.mu.Lock()
	if st, err = w.state(ctx); err != nil {
		w.mu.Unlock()
		return wtState{}, nil, err
	}
	return st, w.mu.Unlock, nil
}

// StartPulse creates the pulse branch at the workflow head and switches the
// worktree to it (no file changes). The worktree must be at rest on the
// workflow branch, and the pulse branch must not exist yet (see
// ResumePulse). It returns the pulse branch.
func (w *Workflow) StartPulse(ctx context.Context, pulseID string) (string, error) {
	st, unlock, err := w.lockPulse(ctx, pulseID)
	if err != nil {
		return "", err
	}
	defer unlock()
	branch := PulseBranch(w.Name, pulseID)
	if st.headRef != w.ref() {
		return "", fmt.Errorf("start pulse %s: the worktree is on %s, not on %s: complete or checkpoint the running pulse first", pulseID, short(st.headRef), w.Branch)
	}
	if _, _, ok, err := w.pulseTip(ctx, pulseID); err != nil {
		return "", err
	} else if ok {
		return "", fmt.Errorf("start pulse %s: branch %s already exists (a kept recovery checkpoint?): resume it with ResumePulse or delete it with DeletePulseBranch", pulseID, branch)
	}
	if _, err := w.run(ctx, nil, "update-ref", "-m", "autarch: start pulse "+pulseID, w.pulseRef(pulseID), st.head, ""); err != nil {
		return "", fmt.Errorf("start pulse %s: %w", pulseID, err)
	}
	if _, err := w.run(ctx, nil, "symbolic-ref", "-m", "autarch: start pulse "+pulseID, "HEAD", w.pulseRef(pulseID)); err != nil {
		return "", fmt.Errorf("start pulse %s: %w", pulseID, err)
	}
	return branch, nil
}

// ResumePulse switches the worktree to a kept pulse branch and restores its
// files (its recovery checkpoint), to continue the pulse. The branch must
// still descend from the workflow head, and the worktree must have no
// uncommitted changes to tracked files.
func (w *Workflow) ResumePulse(ctx context.Context, pulseID string) (string, error) {
	st, unlock, err := w.lockPulse(ctx, pulseID)
	if err != nil {
		return "", err
	}
	defer unlock()
	branch := PulseBranch(w.Name, pulseID)
	tip, _, ok, err := w.pulseTip(ctx, pulseID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("resume pulse %s: branch %s does not exist: start the pulse instead", pulseID, branch)
	}
	if _, err := w.run(ctx, nil, "merge-base", "--is-ancestor", st.head, tip); err != nil {
		if exitCode(err) == 1 {
			return "", fmt.Errorf("resume pulse %s: %s no longer descends from the workflow head %.12s: delete it with DeletePulseBranch and start the pulse again", pulseID, branch, st.head)
		}
		return "", fmt.Errorf("resume pulse %s: %w", pulseID, err)
	}
	if st.headRef != w.pulseRef(pulseID) {
		status, err := w.status(ctx)
		if err != nil {
			return "", err
		}
		if changed := status.TrackedChanges(); len(changed) > 0 {
			return "", fmt.Errorf("resume pulse %s: the worktree has uncommitted changes to %s", pulseID, strings.Join(changed, ", "))
		}
	}
	if _, err := w.run(ctx, nil, "symbolic-ref", "-m", "autarch: resume pulse "+pulseID, "HEAD", w.pulseRef(pulseID)); err != nil {
		return "", fmt.Errorf("resume pulse %s: %w", pulseID, err)
	}
	if _, err := w.run(ctx, nil, "reset", "--hard", "--quiet", tip); err != nil {
		return "", fmt.Errorf("resume pulse %s: %w", pulseID, err)
	}
	return branch, nil
}

// CompletePulse ends a pulse: it commits everything in the worktree (except
// the recorded preflight artifacts) with summary as the message — an empty
// commit when nothing changed — on top of the workflow head, fast-forwards
// the workflow branch to it, deletes the pulse branch and leaves the
// worktree at rest on the new workflow head. Commits the agent made on the
// pulse branch itself (or earlier recovery checkpoints) are squashed into
// the one checkpoint. summary must be a Conventional Commit (ParseSummary).
func (w *Workflow) CompletePulse(ctx context.Context, pulseID, summary string) (Checkpoint, error) {
	if err := ValidatePulseID(pulseID); err != nil {
		return Checkpoint{}, err
	}
	sum, err := ParseSummary(summary)
	if err != nil {
		return Checkpoint{}, err
	}
	st, unlock, err := w.lockPulse(ctx, pulseID)
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	pulseRef := w.pulseRef(pulseID)
	if st.headRef != pulseRef {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: the worktree is on %s, not on %s: start the pulse first", pulseID, short(st.headRef), short(pulseRef))
	}
	tree, excluded, err := w.stage(ctx, st.head)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pulseID, err)
	}
	commit, err := w.commitTree(ctx, tree, st.head, sum.Message())
	if err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pulseID, err)
	}
	if at, err := w.repo.checkedOutElsewhere(ctx, w.ref(), w.Worktree); err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pulseID, err)
	} else if at != "" {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: the workflow branch %s is checked out in %s; switch that worktree to another branch so it can be fast-forwarded (the pulse's work is kept in the worktree)", pulseID, w.Branch, at)
	}
	msg := "autarch: complete pulse " + pulseID
	if _, err := w.run(ctx, nil, "symbolic-ref", "-m", msg, "HEAD", w.ref()); err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pulseID, err)
	}
	tx := fmt.Sprintf("update %s %s %s\ndelete %s\n", w.ref(), commit, st.head, pulseRef)
	if _, err := w.run(ctx, strings.NewReader(tx), "update-ref", "-m", msg, "--stdin"); err != nil {
		// Put HEAD back on the pulse branch so the pulse can be retried.
		_, _ = w.run(context.WithoutCancel(ctx), nil, "symbolic-ref", "HEAD", pulseRef)
		return Checkpoint{}, fmt.Errorf("complete pulse %s: fast-forward %s: %w", pulseID, w.Branch, err)
	}
	// The index holds commit's tree and the work tree what was staged:
	// the worktree is at rest, but where an exclusion (a nested repository
	// the agent made) may cover tracked files, which the reset puts back
	// (issue 35: on 45k files the reset cost a stat pass and an index
	// write).
	if len(excluded) > 0 {
		if _, err := w.run(ctx, nil, "reset", "--hard", "--quiet", commit); err != nil {
			return Checkpoint{}, fmt.Errorf("complete pulse %s: reset worktree: %w", pulseID, err)
		}
	}
	stats, err := w.repo.DiffStats(ctx, st.head, commit)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("complete pulse %s: %w", pulseID, err)
	}
	return Checkpoint{Commit: commit, Parent: st.head, PulseBranch: short(pulseRef), Empty: tree == st.headTree, Stats: stats, Excluded: excluded}, nil
}

// RecoveryCheckpoint ends a failed or stopped pulse. If the worktree holds
// uncommitted work it is committed on the pulse branch, which is kept, as a
// recovery checkpoint (IsRecoveryCheckpoint); then the worktree returns to
// rest on the workflow head. reason goes into the commit message. Call it
// after the agent has stopped, with a context that is not cancelled.
func (w *Workflow) RecoveryCheckpoint(ctx context.Context, pulseID, reason string) (Checkpoint, error) {
	st, unlock, err := w.lockPulse(ctx, pulseID)
	if err != nil {
		return Checkpoint{}, err
	}
	defer unlock()
	pulseRef := w.pulseRef(pulseID)
	tip, tipTree, ok, err := w.pulseTip(ctx, pulseID)
	if err != nil {
		return Checkpoint{}, err
	}
	if !ok {
		return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: branch %s does not exist", pulseID, short(pulseRef))
	}
	tree, excluded, err := w.stage(ctx, st.head)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pulseID, err)
	}
	cp := Checkpoint{Commit: tip, Parent: st.head, PulseBranch: short(pulseRef), Excluded: excluded}
	if tree != tipTree {
		cp.Commit, err = w.commitTree(ctx, tree, tip, recoveryMessage(pulseID, reason))
		if err != nil {
			return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pulseID, err)
		}
		if _, err := w.run(ctx, nil, "update-ref", "-m", "autarch: recovery checkpoint of pulse "+pulseID, pulseRef, cp.Commit, tip); err != nil {
			return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pulseID, err)
		}
		cp.IsRecoveryCheckpoint = true
	}
	if err := w.rest(ctx, st.head); err != nil {
		return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pulseID, err)
	}
	cp.Empty = tree == st.headTree
	if cp.Stats, err = w.repo.DiffStats(ctx, st.head, cp.Commit); err != nil {
		return Checkpoint{}, fmt.Errorf("recovery checkpoint of pulse %s: %w", pulseID, err)
	}
	return cp, nil
}

// RecoveryTrailer marks recovery checkpoint commits.
const RecoveryTrailer = "Autarch-Recovery-Checkpoint: true"

func recoveryMessage(pulseID, reason string) string {
	reason = strings.TrimSpace(strings.ToValidUTF8(strings.ReplaceAll(reason, "\x00", ""), "?"))
	if len(reason) > 4000 {
		reason = reason[:4000] + "…"
	}
	if reason == "" {
		reason = "The pulse ended without completing."
	}
	return fmt.Sprintf("chore(recovery): recovery checkpoint of pulse %s\n\n%s\n\n%s\n", pulseID, reason, RecoveryTrailer)
}

// ResetWorktree puts the worktree at rest: on the workflow branch, its files
// reset to the workflow head (untracked files are kept; nothing is cleaned).
func (w *Workflow) ResetWorktree(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := w.state(ctx)
	if err != nil {
		return err
	}
	return w.rest(ctx, st.head)
}

// rest moves the worktree's HEAD to the workflow branch (detached at its
// head if the user has the branch checked out elsewhere) and hard-resets
// this worktree — and only this one — to head.
func (w *Workflow) rest(ctx context.Context, head string) error {
	at, err := w.repo.checkedOutElsewhere(ctx, w.ref(), w.Worktree)
	if err != nil {
		return err
	}
	if at == "" {
		_, err = w.run(ctx, nil, "symbolic-ref", "-m", "autarch: rest", "HEAD", w.ref())
	} else {
		_, err = w.run(ctx, nil, "update-ref", "--no-deref", "-m", "autarch: rest", "HEAD", head)
	}
	if err != nil {
		return fmt.Errorf("move worktree HEAD: %w", err)
	}
	if _, err := w.run(ctx, nil, "reset", "--hard", "--quiet", head); err != nil {
		return fmt.Errorf("reset worktree: %w", err)
	}
	return nil
}

// DeletePulseBranch deletes a kept pulse branch. The worktree must not be
// on it.
func (w *Workflow) DeletePulseBranch(ctx context.Context, pulseID string) error {
	st, unlock, err := w.lockPulse(ctx, pulseID)
	if err != nil {
		return err
	}
	defer unlock()
	if st.headRef == w.pulseRef(pulseID) {
		return fmt.Errorf("delete pulse branch %s: the worktree is on it; checkpoint the pulse first", pulseID)
	}
	if _, err := w.run(ctx, nil, "update-ref", "-m", "autarch: delete pulse branch", "-d", w.pulseRef(pulseID)); err != nil {
		return fmt.Errorf("delete pulse branch %s: %w", pulseID, err)
	}
	return nil
}

// PulseBranches lists the ids of the workflow's pulses that have a branch
// (the running one and kept recovery branches).
func (w *Workflow) PulseBranches(ctx context.Context) ([]string, error) {
	prefix := "refs/heads/" + PulsePrefix + w.Name + "/"
	refs, err := w.repo.refsUnder(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list pulse branches of %s: %w", w.Name, err)
	}
	ids := make([]string, len(refs))
	for i, ref := range refs {
		ids[i] = strings.TrimPrefix(ref, prefix)
	}
	return ids, nil
}

// rehash stages the tracked files at paths by their content, which git
// would take for unchanged from their stat data (trackedScan.blind).
func (w *Workflow) rehash(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	args := []string{"add", "--renormalize", "--"}
	for _, p := range paths {
		args = append(args, ":(literal,top)"+p)
	}
	if _, err := w.run(ctx, nil, args...); err != nil {
		return fmt.Errorf("staging %d files by content in %s: %w", len(paths), w.Worktree, err)
	}
	return nil
}

// stage writes the worktree's whole state (but the recorded artifacts,
// nested repositories and gitlinks base does not have) to its index and
// returns the tree and what it left out.
func (w *Workflow) stage(ctx context.Context, base string) (string, []Excluded, error) {
	artifacts, err := w.artifacts(ctx)
	if err != nil {
		return "", nil, err
	}
	scan, scanned, done := w.trackedPass(ctx)
	var update []string // nil: git passes over every tracked file
	if scanned {
		update = append([]string{}, scan.maybe...)
		if err := w.rehash(ctx, scan.blind); err != nil {
			done(nil)
			return "", nil, err
		}
	}
	var listed []string
	list := func(ctx context.Context, exclude []string) ([]string, error) {
		var err error
		listed, err = w.untrackedBut(ctx, exclude)
		return listed, err
	}
	tree, excluded, err := w.repo.stageUpdating(ctx, w.Worktree, base, artifacts, list, update)
	if err == nil {
		// The commit holds the bytes the gates tested, whatever an
		// agent's .gitattributes convert (attributes.go): what was
		// staged, and what git took for unchanged.
		var raw []rawEntry
		raw, err = w.unconverted(ctx, append(append(slices.Clone(listed), scan.maybe...), scan.blind...), !scanned, true)
		if err == nil && len(raw) > 0 {
			tree, err = w.stageRaw(ctx, raw)
		}
	}
	if err == nil {
		w.staged(ctx, excluded)
	}
	if err != nil || len(excluded) > 0 || !scanned {
		done(nil)
		return tree, excluded, err
	}
	// What the next pass builds on: the index as staging left it, its
	// new entries (were they linked to one another?) and what was
	// staged still to look at.
	w.afterStaging(ctx, append(listed, scan.maybe...), done)
	return tree, excluded, err
}

// stageIn writes the state of the worktree at dir, but artifacts, nested
// repositories and gitlinks base does not have (StageAll), to its index
// and returns the tree and what it left out. list lists the untracked
// files but those under its exclude (nil: git walks the tree).
func (r *Repo) stageIn(ctx context.Context, dir, base string, artifacts []string, list func(ctx context.Context, exclude []string) ([]string, error)) (string, []Excluded, error) {
	return r.stageUpdating(ctx, dir, base, artifacts, list, nil)
}

// stageUpdating is stageIn where only the tracked files update (when not
// nil) may differ from the index (trackedPass).
func (r *Repo) stageUpdating(ctx context.Context, dir, base string, artifacts []string, list func(ctx context.Context, exclude []string) ([]string, error), update []string) (string, []Excluded, error) {
	if list == nil {
		list = func(ctx context.Context, exclude []string) ([]string, error) {
			return r.untracked(ctx, dir, nil, exclude)
		}
	}
	excluded, err := r.stageAll(ctx, dir, base, nil, artifacts, list, update)
	if err != nil {
		return "", nil, err
	}
	tree, err := r.git.text(ctx, dir, "write-tree")
	if err != nil {
		return "", nil, fmt.Errorf("write tree: %w", err)
	}
	return tree, excluded, nil
}

func (w *Workflow) commitTree(ctx context.Context, tree, parent, message string) (string, error) {
	return w.repo.commitTreeIn(ctx, w.Worktree, tree, parent, message)
}

// commitTreeIn commits tree on parent with message (no hooks run).
func (r *Repo) commitTreeIn(ctx context.Context, dir, tree, parent, message string) (string, error) {
	out, err := r.git.run(ctx, dir, strings.NewReader(message), "commit-tree", tree, "-p", parent, "-F", "-")
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	commit := strings.TrimSpace(string(out))
	r.commits.add(commit)
	return commit, nil
}

func short(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

// nulList is the paths of a NUL-separated list (git's -z output, the
// artifacts file), without empty ones; nil when there are none.
func nulList(data []byte) []string {
	var paths []string
	for _, p := range strings.Split(string(data), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// adminPath returns the worktree's private git directory.
func (w *Workflow) adminPath(ctx context.Context) (string, error) {
	if w.adminDir != "" {
		return w.adminDir, nil
	}
	out, err := w.text(ctx, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return "", fmt.Errorf("worktree git dir: %w", err)
	}
	w.adminDir = out
	return out, nil
}

// RecordArtifacts records the untracked paths now in the worktree (after
// preflight: node_modules/, bin/, …) so that checkpoint commits leave them
// out even where .gitignore does not. Fully untracked directories are
// recorded as one entry ending in "/". Files a pulse creates inside a
// recorded path are therefore not committed either.
func (w *Workflow) RecordArtifacts(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st, err := w.status(ctx)
	if err != nil {
		return nil, err
	}
	return w.recordArtifacts(ctx, st)
}

// RecordArtifactsOf is RecordArtifacts from st, a Status of the worktree
// the caller took with nothing run in it since (issue 35: a second status
// stat-ed every file of a 23k-file tree again).
func (w *Workflow) RecordArtifactsOf(ctx context.Context, st Status) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recordArtifacts(ctx, st)
}

// recordArtifacts records st's untracked paths. Under w.mu.
func (w *Workflow) recordArtifacts(ctx context.Context, st Status) ([]string, error) {
	paths := st.Untracked()
	dir, err := w.adminPath(ctx)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, p := range paths {
		b.WriteString(p)
		b.WriteByte(0)
	}
	if err := os.WriteFile(filepath.Join(dir, artifactsFile), b.Bytes(), 0o644); err != nil {
		return nil, fmt.Errorf("record artifacts: %w", err)
	}
	return paths, nil
}

// Artifacts returns the paths RecordArtifacts recorded.
func (w *Workflow) Artifacts(ctx context.Context) ([]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.artifacts(ctx)
}

func (w *Workflow) artifacts(ctx context.Context) ([]string, error) {
	dir, err := w.adminPath(ctx)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(dir, artifactsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read artifacts: %w", err)
	}
	return nulList(data), nil
}

// WithoutArtifacts is paths but those checkpoints leave out as recorded
// artifacts (Artifacts): a path equal to one, or below one.
func WithoutArtifacts(paths, artifacts []string) []string {
	if len(artifacts) == 0 {
		return paths
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !slices.ContainsFunc(artifacts, func(a string) bool {
			a = strings.TrimSuffix(a, "/")
			return p == a || strings.HasPrefix(p, a+"/")
		}) {
			out = append(out, p)
		}
	}
	return out
}
