package tools

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

// The first mask decision in a recycled worktree takes the restore's walk
// instead of walking again (issue 35: restoring a 23k-file spent tree
// stat-ed every file, and the first command's mask decision stat-ed every
// file again, 0.15–0.2 s of a workflow's preflight). The restore's walk
// (git.RestoreWatch) adds each directory to a tree watch before it reads
// it and keeps each file's stat data; the first decision takes those as
// the walk's findings and then, as every later decision does, looks at
// what the watch saw change since: what the restore wrote back, what the
// claim checked out, and anything anyone wrote in the tree before the
// command. The top of the tree is not watched while the restored tree is
// moved into place (moving a watched folder loses its watch): the
// decision watches it then and looks at everything it holds again, and a
// folder at the top that is not the one the walk watched (moved, replaced)
// makes it walk the whole tree. Anything the watch cannot follow walks the
// whole tree, as after any decision.

// restoreWatch is a git.RestoreWatch: the tree watch a restore's walk
// fills, and what the walk found.
type restoreWatch struct {
	mu    sync.Mutex
	watch *treeWatch
	// top are the folders at the top of the tree the walk watched, by
	// name: their device and inode.
	top    map[string][2]uint64
	files  []git.RestoredFile
	walked bool
}

// NewRestoreWatch starts the watch of a restore of the tree at root
// (git.Repo.ObserveRestores); nil where no tree watch is available.
func NewRestoreWatch(root string) git.RestoreWatch {
	w := newTreeWatch(root)
	if w == nil {
		return nil
	}
	return &restoreWatch{watch: w, top: map[string][2]uint64{}}
}

// Dir watches the directory rel before the restore's walk reads it.
func (r *restoreWatch) Dir(rel string, dev, ino uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watch == nil {
		return
	}
	r.watch.add(rel)
	if !strings.Contains(rel, "/") {
		r.top[rel] = [2]uint64{dev, ino}
	}
}

// Walked keeps what the restore's walk found.
func (r *restoreWatch) Walked(files []git.RestoredFile) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files, r.walked = files, true
}

// Close stops the watch.
func (r *restoreWatch) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.watch.close()
	r.watch = nil
}

// take is the watch, now the caller's, and whether the walk was handed
// over; the watch is nil when it was closed or lost track.
func (r *restoreWatch) take() (*treeWatch, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.watch
	r.watch = nil
	if w != nil && w.lost {
		w.close()
		w = nil
	}
	return w, r.walked
}

// Adopt gives the state the watch of the restore of its tree (a recycled
// worktree just claimed: git.Repo.TakeRestoreWatch): its first decision
// takes the restore's walk instead of walking. A watch of another kind,
// or one given to a state that decided already, is closed.
func (m *MaskState) Adopt(w git.RestoreWatch) {
	rw, ok := w.(*restoreWatch)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok || m.watch != nil || m.handover != nil || m.full > 0 {
		if w != nil {
			w.Close()
		}
		return
	}
	m.handover = rw
}

// maskHandover makes the state's first decision from the restore's walk
// it adopted and what its watch saw change since; false when it cannot
// (walk the tree instead). Under the state's lock.
func (s *Session) maskHandover(c *MaskState, clean func() map[string]bool) ([]string, bool, error) {
	h := c.handover
	c.handover = nil
	w, walked := h.take()
	if w == nil || !walked {
		w.close()
		return nil, false, nil
	}
	root := s.root.Dir()
	w.root = root
	w.add(".") // the top, moved into place since: watched from now on
	top, ok := h.topChanges(root)
	if w.lost || !ok {
		w.close()
		return nil, false, nil
	}
	c.handed++
	c.journal.restart()
	c.watch.close()
	c.watch, c.masks = w, map[string]bool{}
	masked, err := s.maskDecide(c, clean, func(skip func(string), each func(maskFile)) bool {
		for _, f := range h.files {
			if inSkippedDir(f.Path) {
				skip(f.Path)
				continue
			}
			each(maskFile{f.Path, workspace.StatFileInfo(path.Base(f.Path), f.Stat)})
		}
		return false
	})
	if err != nil || c.watch == nil {
		return masked, err != nil, err
	}
	// What changed since the walk stat-ed each file, and all the top
	// holds, is decided again.
	if c.journal.pending.paths == nil {
		c.journal.pending.paths = map[string]bool{}
	}
	for p := range top.paths {
		c.journal.pending.paths[p] = true
	}
	c.journal.pending.newDirs = append(c.journal.pending.newDirs, top.newDirs...)
	masked, ok = s.maskChanges(c)
	return masked, ok, nil
}

// topChanges is what a decision from the restore's walk looks at again of
// the top of the tree at root, which was not watched: every file there (or
// there at the walk), and every folder the walk did not watch; false when
// a folder the walk watched is gone or another.
func (r *restoreWatch) topChanges(root string) (treeChanges, bool) {
	ch := treeChanges{paths: map[string]bool{}}
	for _, f := range r.files {
		if !strings.Contains(f.Path, "/") {
			ch.paths[f.Path] = true
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return ch, false
	}
	seen := 0
	for _, e := range entries {
		name := e.Name()
		id, watched := r.top[name]
		if !e.IsDir() {
			ch.paths[name] = true
			continue
		}
		if !watched {
			ch.newDirs = append(ch.newDirs, name)
			continue
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(filepath.Join(root, name), &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR || [2]uint64{uint64(st.Dev), st.Ino} != id {
			return ch, false
		}
		seen++
	}
	return ch, seen == len(r.top)
}
