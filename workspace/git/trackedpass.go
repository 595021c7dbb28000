package git

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// TrackedJournal is a TreeJournal that also tells which names a file was
// written through (tools.MaskState.MarkTracked): since reports the paths
// changed since the mark, those of them that gained a name (made,
// hard-linked or moved in) and those that lost one by unlink; false when
// it cannot say, or a directory was made whose inside went unseen.
type TrackedJournal interface {
	MarkTracked() (since func() (paths, created, unlinked []string, ok bool))
}

// trackedBase is what the last pass over a worktree's tracked files
// leaves the next one (issue 35: the gates' git diff and the checkpoint's
// git add --update each stat-ed all 23k files of a big tree). From the
// mark taken before that pass, every tracked file is what the index holds
// but the dirty ones and those whose names the journal reports since, as
// long as:
//
//   - the journal followed the whole tree, made no directory it did not
//     watch from the start, and lost no event;
//   - no tracked file had a second name at the mark (a full scan saw
//     each with one link; a narrowed one checked every name made since),
//     and every name the journal reports now is one link or gone by
//     rename, or was there at the mark and is unlinked: so every write
//     went through a name the journal reports (a hard link made, written
//     through and unlinked is a name made and unlinked: the pass looks at
//     every file);
//   - the index holds the same entries (path, mode, stage, flags, object
//     id) as after that pass, whatever their stat data: only our own
//     passes and staging change it, and staging records what it wrote.
//
// Then the next pass stats those paths only; on any doubt, every tracked
// file. Either way git is given the paths whose stat data does not prove
// them unchanged (trackedScan.maybe), which is what git's own pass over
// the whole tree would look at.
type trackedBase struct {
	since   func() (paths, created, unlinked []string, ok bool)
	dirty   []string
	content string
}

// trackedPass stats the tracked files of the worktree against its index:
// only those the journal names since the last pass where trackedBase
// allows, else all. ok is false when the index cannot be scanned (git
// must pass over the tree itself). done records the pass as the base of
// the next one, given the scan of the index as it left it (after staging:
// its new entries and what still differs); done(nil) records none.
func (w *Workflow) trackedPass(ctx context.Context) (scan trackedScan, ok bool, done func(after *trackedScan)) {
	u := w.untracked
	dir, err := w.adminPath(ctx)
	if err != nil {
		return trackedScan{}, false, func(*trackedScan) {}
	}
	index := filepath.Join(dir, "index")
	u.tmu.Lock()
	tj, base := u.tj, u.tracked
	u.tracked = nil // until done: a pass that fails leaves none
	u.tmu.Unlock()
	var mark func() (paths, created, unlinked []string, ok bool)
	if tj != nil {
		mark = tj.MarkTracked() // before the stat: what changes meanwhile is in the next journal
	}
	done = func(after *trackedScan) {
		u.tmu.Lock()
		defer u.tmu.Unlock()
		if after == nil || after.links || mark == nil || u.tj != tj || len(after.maybe) > maxNarrowed {
			return
		}
		u.tracked = &trackedBase{since: mark, dirty: after.maybe, content: after.content}
	}
	if only, narrow := base.narrowed(w.Worktree); narrow {
		if scan, ok = scanTracked(w.Worktree, index, only, w.repo.indexes); ok && scan.content == base.content {
			u.count(1)
			slog.Debug("tracked files: narrowed pass", "worktree", w.Worktree, "stat", len(only), "maybe", len(scan.maybe))
			return scan, true, done
		}
	}
	u.count(0)
	scan, ok = scanTracked(w.Worktree, index, nil, w.repo.indexes)
	slog.Debug("tracked files: full pass", "worktree", w.Worktree, "base", base != nil, "ok", ok, "maybe", len(scan.maybe), "links", scan.links)
	return scan, ok, done
}

// count counts a full (0) or narrowed (1) pass.
func (u *untrackedState) count(kind int) {
	u.tmu.Lock()
	u.scans[kind]++
	u.tmu.Unlock()
}

// TrackedScans is how many of the workflow's passes over its tracked
// files stat-ed all of them and how many only what changed (for tests).
func (w *Workflow) TrackedScans() (full, narrowed int) {
	w.untracked.tmu.Lock()
	defer w.untracked.tmu.Unlock()
	return w.untracked.scans[0], w.untracked.scans[1]
}

// narrowed are the paths the next pass stats (the dirty ones and those
// the journal names), false when it must stat every tracked file
// (trackedBase).
func (b *trackedBase) narrowed(top string) (map[string]bool, bool) {
	if b == nil || b.since == nil {
		return nil, false
	}
	paths, created, unlinked, ok := b.since()
	if !ok || len(paths)+len(b.dirty) > maxNarrowed {
		return nil, false
	}
	only := make(map[string]bool, len(paths)+len(b.dirty))
	for _, p := range b.dirty {
		only[p] = true
	}
	var st unix.Stat_t
	for _, p := range paths {
		only[p] = true
		err := unix.Lstat(filepath.Join(top, filepath.FromSlash(p)), &st)
		switch {
		case err != nil && slices.Contains(created, p) && slices.Contains(unlinked, p):
			return nil, false // a name made and unlinked: a hard link may have been written through
		case err != nil:
			// Gone: moved away (its new name is journalled) or
			// unlinked having been there at the mark.
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			return nil, false // a directory where a file was: what is inside went unseen
		case st.Nlink > 1:
			return nil, false // another name may have been written through
		}
	}
	return only, true
}

// changedPathsScanned is ChangedPaths from a pass over the tracked files
// (trackedPass): git compares only the files whose stat data does not
// prove them unchanged, and the entries where the index differs from the
// branch's tree. ok is false when the index cannot be scanned.
func (w *Workflow) changedPathsScanned(ctx context.Context) (out []string, ok bool, err error) {
	if _, err := w.adminPath(ctx); err != nil { // resolved once, before the listing's goroutine reads it
		return nil, false, nil
	}
	tree, err := w.text(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", w.Branch+"^{tree}")
	if err != nil {
		return nil, false, nil
	}
	var others []string
	var othersErr error
	var wg sync.WaitGroup
	wg.Go(func() { others, othersErr = w.listUntracked(ctx) })
	defer wg.Wait()
	scan, ok, done := w.trackedPass(ctx)
	if !ok {
		wg.Wait()
		return nil, false, nil
	}
	paths := scan.maybe
	if scan.tree != tree {
		// The index's entries differ from the branch's tree somewhere
		// (or its cache tree says nothing): those paths too.
		cached, err := w.run(ctx, nil, "diff-index", "--cached", "--name-only", "--no-renames", "-z", tree, "--")
		if err != nil {
			return nil, true, fmt.Errorf("changed paths in %s: %w", w.Worktree, err)
		}
		paths = append(slices.Clone(paths), nulList(cached)...)
	}
	var tracked []byte
	if len(paths) > 0 {
		args := []string{"diff", "--name-only", "--no-renames", "-z", tree, "--"}
		if len(paths) <= maxNarrowed {
			for _, p := range paths {
				args = append(args, ":(literal,top)"+p)
			}
		} // else git's own pass over the whole tree costs less than matching that many paths
		if tracked, err = w.run(ctx, nil, args...); err != nil {
			return nil, true, fmt.Errorf("changed paths in %s: %w", w.Worktree, err)
		}
	}
	done(&scan)
	if wg.Wait(); othersErr != nil {
		return nil, true, othersErr
	}
	blind, err := w.blindChanged(ctx, scan.blind)
	if err != nil {
		return nil, true, err
	}
	out = append(append(nulList(tracked), others...), blind...)
	// An edit an agent's .gitattributes convert away is a change
	// (attributes.go): of the paths git looked at, those it calls
	// unchanged.
	named := map[string]bool{}
	for _, p := range out {
		named[p] = true
	}
	var unchanged []string
	for _, p := range append(slices.Clone(scan.maybe), scan.blind...) {
		if !named[p] {
			unchanged = append(unchanged, p)
		}
	}
	raw, err := w.unconverted(ctx, unchanged, false, false)
	if err != nil {
		return nil, true, err
	}
	for _, e := range raw {
		out = append(out, e.path)
	}
	slices.Sort(out)
	return slices.Compact(out), true, nil
}

// afterStaging records, through done, the index our staging wrote as the
// base of the next pass: its entries at paths (what it added and what it
// staged) stat-ed against it, and none of them with a second name.
func (w *Workflow) afterStaging(ctx context.Context, paths []string, done func(*trackedScan)) {
	dir, err := w.adminPath(ctx)
	if err != nil {
		done(nil)
		return
	}
	only := make(map[string]bool, len(paths))
	for _, p := range paths {
		only[p] = true
	}
	after, ok := scanTracked(w.Worktree, filepath.Join(dir, "index"), only, w.repo.indexes)
	if !ok {
		done(nil)
		return
	}
	done(&after)
}
