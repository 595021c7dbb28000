package tools

import "slices"

// journalState is what a mask state's tree watch reported since the watch
// began: every path a file event named and every directory made or moved
// in (standing for everything below it). A workflow's listings of
// untracked files look only there, through MaskState.Mark (issue 35: each
// listing walked a 23k-file tree for the one file a pulse wrote). It
// holds only while the watch follows the whole tree: a new walk (the
// watch lost track), a directory the walk skipped (dependencies, a nested
// .git: nobody sees what changes in it) or too long a journal breaks the
// marks taken before.
type journalState struct {
	epoch int
	paths []string
	// kinds are, for each of paths, how the event named it (journalCreated,
	// journalUnlinked); dirs counts the new directories journalled.
	kinds   []uint8
	dirs    int
	skipped bool
	// pending is what the watch reported that the next mask decision has
	// not looked at yet (a listing read it first).
	pending treeChanges
}

// maxJournal bounds the journal; past it the marks taken before break and
// their listings walk the tree.
const maxJournal = 4096

// restart begins a new journal: the watch starts again, and what the old
// one reported is decided by the walk.
func (j *journalState) restart() {
	j.epoch++
	j.paths, j.kinds, j.skipped, j.pending = nil, nil, false, treeChanges{}
}

// How an event named a journalled path.
const (
	journalCreated  uint8 = 1 << iota // a new name: made, hard-linked or moved in
	journalUnlinked                   // a name unlinked
)

// add journals a path the watch reported, named as kind says.
func (j *journalState) add(p string, kind uint8) {
	if len(j.paths) >= maxJournal {
		j.epoch++
		j.paths, j.kinds = nil, nil
	}
	j.paths = append(j.paths, p)
	j.kinds = append(j.kinds, kind)
}

// collect reads the watch's events into the journal and into what the
// next decision looks at; false when the watch lost track. Under m.mu.
func (m *MaskState) collect() bool {
	ch, ok := m.watch.changes()
	j := &m.journal
	if j.pending.paths == nil {
		j.pending.paths = map[string]bool{}
	}
	for p := range ch.paths {
		j.pending.paths[p] = true
		var kind uint8
		if ch.created[p] {
			kind |= journalCreated
		}
		if ch.unlinked[p] {
			kind |= journalUnlinked
		}
		j.add(p, kind)
	}
	for _, d := range ch.newDirs {
		j.pending.newDirs = append(j.pending.newDirs, d)
		j.add(d, journalCreated)
		j.dirs++
	}
	return ok
}

// drain is what changed since the last decision (collect, then what was
// pending); false when the watch cannot say. Under m.mu.
func (m *MaskState) drain() (treeChanges, bool) {
	if !m.collect() {
		return treeChanges{}, false
	}
	ch := m.journal.pending
	m.journal.pending = treeChanges{}
	if ch.paths == nil {
		ch.paths = map[string]bool{}
	}
	return ch, true
}

// Mark starts following the tree's changes (git.TreeJournal): since
// reports the paths, relative and slash-separated, that anything created,
// wrote, moved, deleted or changed the mode of since the mark (a
// directory standing for everything below it); false when the watch
// cannot say (none yet, it lost track or started again, or a skipped
// directory is not followed): then the caller looks at the whole tree.
func (m *MaskState) Mark() (since func() ([]string, bool)) {
	m.mu.Lock()
	// What happened before the mark is read now, so that it is not taken
	// for a change since.
	live := m.watch != nil && !m.journal.skipped && m.collect()
	epoch, n := m.journal.epoch, len(m.journal.paths)
	m.mu.Unlock()
	return func() ([]string, bool) {
		if !live {
			return nil, false
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.watch == nil || m.journal.epoch != epoch || m.journal.skipped || !m.collect() || m.journal.epoch != epoch {
			return nil, false
		}
		return slices.Clone(m.journal.paths[n:]), true
	}
}

// MarkTracked is Mark for a workflow's passes over its tracked files
// (git.TrackedJournal), which must know every name a tracked file was
// written through: since also reports which paths gained a name
// (created: made, hard-linked or moved in) and which lost one by unlink
// (unlinked), and is false as well when a directory was made since the
// mark, or before it and no decision has watched it yet (what happened
// inside it went unseen).
func (m *MaskState) MarkTracked() (since func() (paths, created, unlinked []string, ok bool)) {
	m.mu.Lock()
	live := m.watch != nil && !m.journal.skipped && m.collect() && len(m.journal.pending.newDirs) == 0
	epoch, n, dirs := m.journal.epoch, len(m.journal.paths), m.journal.dirs
	m.mu.Unlock()
	return func() (paths, created, unlinked []string, ok bool) {
		if !live {
			return nil, nil, nil, false
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		j := &m.journal
		if m.watch == nil || j.epoch != epoch || j.skipped || !m.collect() || j.epoch != epoch || j.dirs != dirs {
			return nil, nil, nil, false
		}
		paths = slices.Clone(j.paths[n:])
		for i, p := range paths {
			if j.kinds[n+i]&journalCreated != 0 {
				created = append(created, p)
			}
			if j.kinds[n+i]&journalUnlinked != 0 {
				unlinked = append(unlinked, p)
			}
		}
		return paths, created, unlinked, true
	}
}
