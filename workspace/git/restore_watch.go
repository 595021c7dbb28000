package git

import (
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Handing the restore's walk over (issue 35). Restoring a spent tree
// (recycle.go) stats every file of it; the first command in the tree then
// walked it again to decide which files hold secrets and must be masked
// (0.15–0.2 s of a 23k-file tree's preflight). When the caller asks
// (ObserveRestores), the restore's walk is watched from its first
// directory on and what it found is handed to whoever takes the tree: the
// watch reports every change made in the tree after the walk stat-ed a
// file, so the file's stat data plus the watch's report are what a walk
// at the first command would find.

// A RestoreWatch follows a restored tree from its walk on. Its methods may
// be called from several goroutines at once.
type RestoreWatch interface {
	// Dir is called before the walk reads the directory rel (relative,
	// slash-separated, never the top itself), with its device and inode.
	Dir(rel string, dev, ino uint64)
	// Walked hands over what the walk found of the tree's regular files,
	// each as it was stat-ed after its directory was watched, once the
	// restore is done.
	Walked(files []RestoredFile)
	// Close stops the watch: the restore failed, or nobody took the tree.
	Close()
}

// RestoredFile is a regular file a restore's walk found (RestoreWatch):
// its path, relative to the tree and slash-separated, and its stat data.
type RestoredFile struct {
	Path string
	Stat syscall.Stat_t
}

// restoreWatches are the watches of a Repo's restores: how one is made,
// and those of the trees claimed and not yet taken (TakeRestoreWatch), by
// worktree path.
type restoreWatches struct {
	mu      sync.Mutex
	observe func(tree string) RestoreWatch
	claimed map[string]RestoreWatch
}

// maxClaimedWatches bounds the claimed watches nobody took (each holds a
// file descriptor and a tree's stat data); past it, one is closed.
const maxClaimedWatches = 8

// ObserveRestores makes each later restore of a spent tree watched by
// observe(tree), tree the path the tree is restored at: what its walk
// found goes to whoever takes the worktree (TakeRestoreWatch). observe
// may return nil (no watch).
func (r *Repo) ObserveRestores(observe func(tree string) RestoreWatch) {
	r.prepared.watches.mu.Lock()
	defer r.prepared.watches.mu.Unlock()
	r.prepared.watches.observe = observe
}

// TakeRestoreWatch is the watch of the restore of the worktree at path,
// claimed since (a workflow's or a pulse's worktree), for the caller to
// own; nil when there is none.
func (r *Repo) TakeRestoreWatch(path string) RestoreWatch {
	w := &r.prepared.watches
	w.mu.Lock()
	defer w.mu.Unlock()
	rw := w.claimed[path]
	delete(w.claimed, path)
	return rw
}

// start is the watch of a restore of tree, or nil.
func (w *restoreWatches) start(tree string) RestoreWatch {
	w.mu.Lock()
	observe := w.observe
	w.mu.Unlock()
	if observe == nil {
		return nil
	}
	return observe(tree)
}

// claim hands the watch of a restored tree, now the worktree at path,
// to TakeRestoreWatch.
func (w *restoreWatches) claim(path string, rw RestoreWatch) {
	if rw == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.claimed == nil {
		w.claimed = map[string]RestoreWatch{}
	}
	if old := w.claimed[path]; old != nil {
		old.Close()
	}
	for p, old := range w.claimed {
		if len(w.claimed) < maxClaimedWatches {
			break
		}
		old.Close()
		delete(w.claimed, p)
	}
	w.claimed[path] = rw
}

// drop closes the watch of the worktree at path nobody took (removed).
func (w *restoreWatches) drop(path string) {
	w.mu.Lock()
	rw := w.claimed[path]
	delete(w.claimed, path)
	w.mu.Unlock()
	if rw != nil {
		rw.Close()
	}
}

// closeWatch closes rw when there is one.
func closeWatch(rw RestoreWatch) {
	if rw != nil {
		rw.Close()
	}
}

// syscallStat is st as the syscall package's type: both are this
// platform's struct stat.
func syscallStat(st *unix.Stat_t) syscall.Stat_t {
	return *(*syscall.Stat_t)(unsafe.Pointer(st))
}

var _ = [1]struct{}{}[unsafe.Sizeof(unix.Stat_t{})-unsafe.Sizeof(syscall.Stat_t{})] // the same size
