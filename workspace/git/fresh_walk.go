package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// freshEntries are the entries of the index a restored tree must match,
// by path, the directories they need, and when the index was written.
type freshEntries struct {
	list    []indexEntry
	byPath  map[string]int32
	dirs    map[string]bool
	written time.Time
}

// freshIndex reads the entries of the index at p, which must all be plain
// files, symbolic links or executables at stage 0, with no flag that
// makes git skip a file (assume-unchanged, skip-worktree, intent-to-add).
func freshIndex(p string) (freshEntries, error) {
	want := freshEntries{}
	fi, err := os.Stat(p)
	if err != nil {
		return want, err
	}
	want.written = fi.ModTime()
	data, err := os.ReadFile(p)
	if err != nil {
		return want, err
	}
	n := 0
	if len(data) >= 12 {
		n = int(min(binary.BigEndian.Uint32(data[8:12]), 1<<20)) // a hint
	}
	want.list, want.byPath, want.dirs = make([]indexEntry, 0, n), make(map[string]int32, n), make(map[string]bool, n/8)
	var bad string
	ok := readIndexData(data, func(e *indexEntry) {
		if bad == "" && (e.assumeValid || e.skipWorktree || e.intentToAdd || e.stage != 0 || e.mode != 0o100644 && e.mode != 0o100755 && e.mode != 0o120000) {
			bad = e.path
		}
		want.byPath[e.path] = int32(len(want.list))
		want.list = append(want.list, *e)
		addDirs(want.dirs, e.path)
	})
	switch {
	case !ok:
		return want, errors.New("the index cannot be read")
	case bad != "":
		return want, fmt.Errorf("index entry %q is not a plain file", bad)
	}
	if now, err := os.Stat(p); err != nil || !now.ModTime().Equal(want.written) {
		return want, errors.New("the index changed while it was read")
	}
	return want, nil
}

// addDirs adds the folders p lies in to dirs.
func addDirs(dirs map[string]bool, p string) {
	for {
		i := strings.LastIndexByte(p, '/')
		if i < 0 || dirs[p[:i]] {
			return
		}
		p = p[:i]
		dirs[p] = true
	}
}

// extraPath is a path of the tree the index does not hold.
type extraPath struct {
	rel string
	dir bool
}

// freshWalk is one walk of a restored tree (verifyFresh), shared by its
// walkers: each takes an open directory from the queue and walks it,
// putting a subdirectory back in the queue while others wait for one.
type freshWalk struct {
	want  freshEntries
	since unix.Timespec
	mask  uint32
	uid   uint32
	seen  []bool // by entry; each is set by the one walker that finds it
	// watch, when not nil, is told of each directory before it is read,
	// and stats keeps each entry's stat data (by entry, as seen).
	watch RestoreWatch
	stats []unix.Stat_t

	mu    sync.Mutex
	cond  sync.Cond
	queue []freshDir
	busy  int // walkers walking a directory
	err   error
	stale []string
	extra []extraPath
}

// freshDir is an open directory of the tree, waiting for a walker.
type freshDir struct {
	fd   int
	path string
}

// freshWalker is one walker's state.
type freshWalker struct {
	*freshWalk
	path  []byte // the path of the entry, relative to the top
	buf   []byte // getdents
	stale []string
	extra []extraPath
}

// verifyFresh checks, in one walk of the tree at top (each entry stat-ed
// through its directory's descriptor, no symbolic link followed, in
// parallel), that it holds what a fresh checkout of the index entries
// want holds, but for:
//
//   - stale: the files to write again from the index — missing, of
//     another type or mode, linked elsewhere, with stat data that is not
//     what the index recorded, or changed at or after since (when the
//     tree was last made fresh: whatever its other stat data says);
//   - extra: the paths the index does not hold (untracked or ignored
//     files, folders, nested repositories), not looked into.
//
// Anything it cannot put right that way is an error: a file or folder not
// ours, a folder with another mode, the .git file or the admin directory
// gitDir holding what git worktree add did not write.
func verifyFresh(top, gitDir string, want freshEntries, since unix.Timespec) (stale []string, extra []extraPath, err error) {
	w, err := verifyFreshWatched(top, gitDir, want, since, nil)
	return w.stale, w.extra, err
}

// verifyFreshWatched is verifyFresh that, when watch is not nil, tells
// watch of each directory before it reads it and keeps what it found of
// each file (freshWalk.files).
func verifyFreshWatched(top, gitDir string, want freshEntries, since unix.Timespec, watch RestoreWatch) (*freshWalk, error) {
	w := &freshWalk{want: want, since: since, mask: uint32(umask()), uid: uint32(os.Getuid()),
		seen: make([]bool, len(want.list)), watch: watch}
	admin, err := os.ReadDir(gitDir)
	if err != nil {
		return w, err
	}
	for _, e := range admin {
		if !slices.Contains(adminFiles, e.Name()) {
			return w, fmt.Errorf("unexpected %s in the admin directory", e.Name())
		}
	}
	dotGit, err := os.ReadFile(filepath.Join(top, ".git"))
	if err != nil || strings.TrimSpace(string(dotGit)) != "gitdir: "+gitDir {
		return w, fmt.Errorf(".git does not name %s: %q", gitDir, dotGit)
	}
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return w, &fs.PathError{Op: "open", Path: top, Err: err}
	}
	if watch != nil {
		w.stats = make([]unix.Stat_t, len(want.list))
	}
	w.queue = []freshDir{{fd: fd}}
	w.cond.L = &w.mu
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), maxWalkers) {
		wg.Go(w.run)
	}
	wg.Wait()
	for _, d := range w.queue { // left by an error
		unix.Close(d.fd)
	}
	if w.err != nil {
		return &freshWalk{}, w.err
	}
	for i, ok := range w.seen {
		if !ok {
			w.stale = append(w.stale, want.list[i].path) // missing
		}
	}
	return w, nil
}

// files are the regular files the walk found, with their stat data as
// it found them (RestoreWatch.Walked); nil when it kept none.
func (w *freshWalk) files(want freshEntries) []RestoredFile {
	if w.stats == nil {
		return nil
	}
	out := make([]RestoredFile, 0, len(want.list))
	for i, ok := range w.seen {
		if ok && w.stats[i].Mode&unix.S_IFMT == unix.S_IFREG {
			out = append(out, RestoredFile{Path: want.list[i].path, Stat: syscallStat(&w.stats[i])})
		}
	}
	return out
}

// maxWalkers bounds the walkers of one walk, and sharedDirs the open
// directories waiting in its queue.
const (
	maxWalkers = 4
	sharedDirs = 16
)

// run is one walker: it walks directories from the queue until the queue
// is empty and no other walker is walking one (which may add more), or
// one failed.
func (w *freshWalk) run() {
	k := &freshWalker{freshWalk: w, buf: make([]byte, 32<<10)}
	w.mu.Lock()
	defer w.mu.Unlock()
	for {
		for len(w.queue) == 0 && w.busy > 0 && w.err == nil {
			w.cond.Wait()
		}
		if len(w.queue) == 0 || w.err != nil {
			break
		}
		d := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.busy++
		w.mu.Unlock()
		k.path = append(k.path[:0], d.path...)
		err := k.dir(d.fd)
		unix.Close(d.fd)
		w.mu.Lock()
		w.busy--
		if err != nil && w.err == nil {
			w.err = err
		}
		w.cond.Broadcast()
	}
	w.stale = append(w.stale, k.stale...)
	w.extra = append(w.extra, k.extra...)
}

// share puts the open directory fd, whose path is rel, in the queue for
// another walker; false when enough wait there already.
func (w *freshWalk) share(fd int, rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) >= sharedDirs || w.err != nil {
		return false
	}
	w.queue = append(w.queue, freshDir{fd: fd, path: rel})
	w.cond.Signal()
	return true
}

// dir walks the open directory fd, whose path is w.path, and closes
// nothing.
func (w *freshWalker) dir(fd int) error {
	var subdirs []string
	for {
		n, err := unix.Getdents(fd, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "getdents", Path: string(w.path), Err: err}
		}
		if n <= 0 {
			break
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino, off, reclen, type, name.
			reclen := int(binary.NativeEndian.Uint16(w.buf[off+16:]))
			typ := w.buf[off+18]
			name := w.buf[off+19 : off+reclen]
			name = name[:bytes.IndexByte(name, 0)+1] // with its NUL
			off += reclen
			if string(name) == ".\x00" || string(name) == "..\x00" {
				continue
			}
			isDir, err := w.entry(fd, name, typ)
			if err != nil {
				return err
			}
			if isDir {
				subdirs = append(subdirs, string(name[:len(name)-1]))
			}
		}
	}
	base := len(w.path)
	defer func() { w.path = w.path[:base] }()
	for _, name := range subdirs {
		w.path = w.join(base, name)
		rel := string(w.path)
		if !w.want.dirs[rel] {
			w.extra = append(w.extra, extraPath{rel: rel, dir: true})
			continue
		}
		sub, err := w.openDir(fd, name, rel)
		if err != nil {
			return err
		}
		if w.share(sub, rel) {
			continue
		}
		err = w.dir(sub)
		unix.Close(sub)
		if err != nil {
			return err
		}
	}
	return nil
}

// openDir opens the directory name, of path rel, in the open directory
// fd, and checks it is the checkout's.
func (w *freshWalker) openDir(fd int, name, rel string) (int, error) {
	sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "openat", Path: rel, Err: err}
	}
	var st unix.Stat_t
	switch err := unix.Fstat(sub, &st); {
	case err != nil:
		err = &fs.PathError{Op: "fstat", Path: rel, Err: err}
	case st.Uid != w.uid:
		err = fmt.Errorf("%s is not ours", rel)
	case st.Mode != unix.S_IFDIR|0o777&^w.mask:
		err = fmt.Errorf("directory %s (%o) is not the checkout's", rel, st.Mode)
	default:
		if w.watch != nil {
			w.watch.Dir(rel, uint64(st.Dev), st.Ino) // before it is read
		}
		return sub, nil
	}
	unix.Close(sub)
	return -1, err
}

// join is w.path cut to base and name appended below it.
func (w *freshWalker) join(base int, name string) []byte {
	return append(w.below(base), name...)
}

// joinBytes is join of a name in bytes (no copy of it made).
func (w *freshWalker) joinBytes(base int, name []byte) []byte {
	return append(w.below(base), name...)
}

// below is w.path cut to base, with a separator when not the top.
func (w *freshWalker) below(base int) []byte {
	if base > 0 {
		return append(w.path[:base], '/')
	}
	return w.path[:base]
}

// entry checks the directory entry name (NUL-terminated) of the open
// directory fd, of dirent type typ; isDir: a directory, to walk after the
// others.
func (w *freshWalker) entry(fd int, name []byte, typ byte) (isDir bool, err error) {
	if typ == unix.DT_DIR {
		return true, nil
	}
	var st unix.Stat_t
	if err := fstatatNul(fd, &name[0], &st); err != nil {
		return false, &fs.PathError{Op: "fstatat", Path: string(w.path) + "/" + string(name[:len(name)-1]), Err: err}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return true, nil
	}
	return false, w.file(name[:len(name)-1], &st)
}

// file checks the entry name, no directory, of stat data st.
func (w *freshWalker) file(name []byte, st *unix.Stat_t) error {
	base := len(w.path)
	w.path = w.joinBytes(base, name)
	defer func() { w.path = w.path[:base] }()
	if st.Uid != w.uid {
		return fmt.Errorf("%s is not ours", w.path)
	}
	if base == 0 && string(w.path) == ".git" {
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 {
			return errors.New(".git is no plain file")
		}
		return nil
	}
	i, tracked := w.want.byPath[string(w.path)]
	if !tracked {
		w.extra = append(w.extra, extraPath{rel: string(w.path)})
		return nil
	}
	w.seen[i] = true
	if w.stats != nil {
		w.stats[i] = *st
	}
	e := &w.want.list[i]
	var ok bool
	switch e.mode {
	case 0o100644:
		ok = st.Mode == unix.S_IFREG|0o666&^w.mask && st.Nlink == 1
	case 0o100755:
		ok = st.Mode == unix.S_IFREG|0o777&^w.mask && st.Nlink == 1
	case 0o120000:
		ok = st.Mode&unix.S_IFMT == unix.S_IFLNK
	}
	if !ok || !w.matches(e, st) {
		w.stale = append(w.stale, e.path)
	}
	return nil
}

// matches reports whether the file's stat data st is what the index
// recorded of it, the file was written before the index (so that a change
// in the same clock tick cannot hide: git's racy entries) and it has not
// changed since the tree was last made fresh.
func (w *freshWalk) matches(e *indexEntry, st *unix.Stat_t) bool {
	mtime := time.Unix(int64(e.mtimeSec), int64(e.mtimeNsec))
	return uint32(st.Ctim.Sec) == e.ctimeSec && uint32(st.Ctim.Nsec) == e.ctimeNsec &&
		uint32(st.Mtim.Sec) == e.mtimeSec && uint32(st.Mtim.Nsec) == e.mtimeNsec &&
		uint32(st.Ino) == e.ino && st.Uid == e.uid && st.Gid == e.gid && uint32(st.Size) == e.size &&
		mtime.Before(w.want.written) &&
		(st.Ctim.Sec < w.since.Sec || st.Ctim.Sec == w.since.Sec && st.Ctim.Nsec < w.since.Nsec)
}
