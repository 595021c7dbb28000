package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxPatternFile caps a .gitignore or .autarchignore read by WalkConfined.
const maxPatternFile = 1 << 20

// WalkConfined is Walk through the confined root, for listings the model
// sees: start is opened through the os.Root (so a start that resolves
// outside the workspace gives an ErrOutside error), and every directory
// below it is opened relative to its parent's descriptor with O_NOFOLLOW.
// A directory swapped for a symlink between the listing of its parent and
// its own open is skipped, never followed, so no name from outside the
// workspace is ever reported, however the tree changes during the walk.
// Symlinks are reported as entries (not directories) and not followed.
// Pattern files are read through the same descriptors. Order, ignore rules
// and the meaning of fn's results are those of Walk.
func (ig *Ignore) WalkConfined(ctx context.Context, start string, fn WalkFunc) error {
	return ig.WalkHidden(ctx, start, fn, nil)
}

// WalkHidden is WalkConfined that also reports to hidden (when not nil)
// each entry the ignore rules hide: a hidden directory is reported once
// and not entered. A caller that needs every file (the egress harvest
// reads ignored secret files too) walks only the hidden directories
// again, not the whole tree.
func (ig *Ignore) WalkHidden(ctx context.Context, start string, fn WalkFunc, hidden func(rel string, d fs.DirEntry)) error {
	var parts []string
	if start != "." {
		parts = strings.Split(start, "/")
	}
	ps := append([]ignorePattern(nil), ig.base...)
	ps = append(ps, ig.patterns("")...)
	for i := 1; i <= len(parts); i++ {
		ps = append(ps, ig.patterns(strings.Join(parts[:i], "/"))...)
	}
	native := filepath.FromSlash(start)
	fi, err := ig.root.root.Stat(native)
	if err != nil {
		return explain(start, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is %s, not a directory", start, KindOf(fi.Mode()))
	}
	// O_DIRECTORY: something swapped in since the Stat (a FIFO would block
	// a plain open) fails at once.
	dir, err := ig.root.root.OpenFile(native, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return explain(start, err)
	}
	// The walk reads folders through plain descriptors (no *os.File: no
	// poller, no fcntl, no allocation per entry); the start's is a copy.
	fd, err := dupFD(dir)
	dir.Close()
	if err != nil {
		return fmt.Errorf("walking %s: %w", start, err)
	}
	top := newWalkDir(fd)
	defer top.Release()
	w := &walker{ig: ig, fn: fn, hidden: hidden, buf: make([]byte, direntBuf)}
	err = w.walk(ctx, top, start, parts, ps, false)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

// direntBuf is the size of the buffer getdents fills: most folders are
// listed in one call (and the one that finds the end).
const direntBuf = 32 << 10

// walker is one walk's state.
type walker struct {
	ig     *Ignore
	fn     WalkFunc
	hidden func(string, fs.DirEntry)
	buf    []byte // getdents' buffer, shared by every folder (each is listed whole before the next)
}

// dupFD duplicates the descriptor of f (close-on-exec).
func dupFD(f *os.File) (int, error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var derr error
	if cerr := conn.Control(func(dfd uintptr) { fd, derr = unix.FcntlInt(dfd, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		return -1, cerr
	}
	return fd, derr
}

// walk walks the open directory dir (rel, parts); ps are the patterns
// that apply in it, without its own pattern files' unless ownIn (then
// they are read here, only when the listing has them: a directory
// without a .gitignore costs no failed open).
func (w *walker) walk(ctx context.Context, d *WalkDir, rel string, parts []string, ps []ignorePattern, ownIn bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	dir := d.fd
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	entries, err := w.list(d, prefix)
	if err != nil && len(entries) == 0 {
		return nil // vanished or unreadable: skip
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.name, b.name) })
	if ownIn {
		listed := func(name string) bool {
			_, found := slices.BinarySearchFunc(entries, name, func(e dirEntry, n string) int { return strings.Compare(e.name, n) })
			return found
		}
		own := w.ig.cachedPatterns(rel, func(p string) ([]byte, error) {
			name := p[strings.LastIndexByte(p, '/')+1:]
			if !listed(name) {
				return nil, fs.ErrNotExist
			}
			return readAt(dir, name, maxPatternFile)
		})
		if len(own) > 0 {
			ps = append(ps[:len(ps):len(ps)], own...)
		}
	}
	var m *dirMatcher
	if len(ps) > 0 {
		if m = newDirMatcher(parts, ps); m.empty() {
			m = nil
		}
	}
	for i := range entries {
		e := &entries[i]
		name := e.name
		if name == ".git" {
			continue
		}
		childRel := e.rel
		isDir := e.IsDir()
		var child []string // the path's elements, for a glob pattern and a directory's walk
		path := func() []string {
			if child == nil {
				child = append(parts[:len(parts):len(parts)], name)
			}
			return child
		}
		if m != nil && m.match(name, isDir, path) {
			if w.hidden != nil {
				w.hidden(childRel, e)
			}
			continue
		}
		err := w.fn(childRel, e)
		if !isDir {
			if err != nil && err != fs.SkipDir {
				return err
			}
			continue
		}
		if err == fs.SkipDir {
			continue
		}
		if err != nil {
			return err
		}
		fd, err := openDirAt(dir, name)
		if err != nil {
			continue // replaced by a symlink or a file, or vanished: skip
		}
		sub := newWalkDir(fd)
		err = w.walk(ctx, sub, childRel, path(), ps, true)
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// list reads the entries of the directory d (but "." and ".."), in the
// order getdents gives them, each with its path (prefix and its name). Whatever was read before an error is
// returned with it.
func (w *walker) list(d *WalkDir, prefix string) ([]dirEntry, error) {
	var entries []dirEntry
	// The entries' paths share one block per getdents batch (an
	// allocation per entry was most of a walk's): a block is only ever
	// appended to, so a path handed out is never written again.
	var paths []byte
	dir := d.fd
	for {
		n, err := unix.Getdents(dir, w.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return entries, err
		}
		if n <= 0 {
			return entries, nil
		}
		need := 0 // at most what the batch's paths take
		for b := w.buf[:n]; len(b) >= direntNameOff; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[direntReclenOff])))
			if reclen < direntNameOff || reclen > len(b) {
				break // refused below
			}
			need += len(prefix) + reclen - direntNameOff
			b = b[reclen:]
		}
		if cap(paths)-len(paths) < need {
			paths = make([]byte, 0, need)
		}
		for b := w.buf[:n]; len(b) >= direntNameOff; {
			reclen := int(*(*uint16)(unsafe.Pointer(&b[direntReclenOff])))
			if reclen < direntNameOff || reclen > len(b) {
				return entries, fmt.Errorf("reading a folder: a malformed entry")
			}
			rec := b[direntNameOff:reclen]
			typ := b[direntTypeOff]
			b = b[reclen:]
			nameLen := bytes.IndexByte(rec, 0)
			if nameLen < 0 {
				nameLen = len(rec)
			}
			if nameLen == 0 || nameLen == 1 && rec[0] == '.' || nameLen == 2 && rec[0] == '.' && rec[1] == '.' {
				continue
			}
			// one string for the path, the name a part of it
			start := len(paths)
			paths = append(append(paths, prefix...), rec[:nameLen]...)
			rel := paths[start:]
			e := dirEntry{rel: unsafe.String(unsafe.SliceData(rel), len(rel)), dir: d}
			e.name = e.rel[len(prefix):]
			if typ == unix.DT_UNKNOWN { // a file system that does not say: ask
				var st unix.Stat_t
				if unix.Fstatat(dir, e.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue // vanished
				}
				e.typ = statInfo{st: *(*syscall.Stat_t)(unsafe.Pointer(&st))}.Mode().Type()
			} else {
				e.typ = direntType(typ)
			}
			entries = append(entries, e)
		}
	}
}

// The layout of struct linux_dirent64: d_ino, d_off (8 bytes each),
// d_reclen (2), d_type (1), then the name, NUL-terminated.
const (
	direntReclenOff = 16
	direntTypeOff   = 18
	direntNameOff   = 19
)

// direntType is the fs.FileMode type of a dirent's d_type.
func direntType(t uint8) fs.FileMode {
	switch t {
	case unix.DT_DIR:
		return fs.ModeDir
	case unix.DT_LNK:
		return fs.ModeSymlink
	case unix.DT_FIFO:
		return fs.ModeNamedPipe
	case unix.DT_SOCK:
		return fs.ModeSocket
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.DT_BLK:
		return fs.ModeDevice
	case unix.DT_REG:
		return 0
	}
	return fs.ModeIrregular
}

// dirEntry is an entry of a folder listed by a walk. Its Info stats it
// through its folder's descriptor (the folder has no path of its own to
// stat), so it is valid during the walk's call only.
type dirEntry struct {
	name string
	rel  string // the entry's path in the walk, which name ends
	typ  fs.FileMode
	dir  *WalkDir
}

func (e *dirEntry) Name() string               { return e.name }
func (e *dirEntry) IsDir() bool                { return e.typ.IsDir() }
func (e *dirEntry) Type() fs.FileMode          { return e.typ }
func (e *dirEntry) String() string             { return fs.FormatDirEntry(e) }
func (e *dirEntry) Info() (fs.FileInfo, error) { return fstatAt(e.dir.fd, e.name) }

// WalkDir is a folder a walk has open. A reader of the files the walk
// reports may hold it (HoldWalkDir) to open them relative to it, with no
// path lookup from the root and no symlink followed on the way; the
// descriptor is closed when the walk and every holder have released it.
type WalkDir struct {
	fd   int
	refs atomic.Int32
}

func newWalkDir(fd int) *WalkDir {
	d := &WalkDir{fd: fd}
	d.refs.Store(1) // the walk's
	return d
}

// HoldWalkDir holds the folder of an entry a walk reported, during the
// walk's call: nil when d is no entry of a walk. The caller releases it.
func HoldWalkDir(d fs.DirEntry) *WalkDir {
	e, ok := d.(*dirEntry)
	if !ok || e.dir == nil {
		return nil
	}
	e.dir.refs.Add(1)
	return e.dir
}

// Release gives the folder up; the last release closes it.
func (d *WalkDir) Release() {
	if d.refs.Add(-1) == 0 {
		unix.Close(d.fd)
	}
}

// openDirAt opens the folder name inside the directory dir without
// following a symlink in its place. It is opened without O_NONBLOCK
// (O_DIRECTORY alone): the kernel refuses anything else (a FIFO swapped
// in) before it would open it.
func openDirAt(dir int, name string) (int, error) {
	return openFDAt(dir, name, unix.O_DIRECTORY)
}

// openFDAt opens name inside the directory dir read-only, without
// following a symlink in its place (O_NOFOLLOW), O_NOCTTY and with flags.
func openFDAt(dir int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY|flags, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "openat", Path: name, Err: err}
		}
		return fd, nil
	}
}

// readAt reads the regular file name of at most max bytes inside dir,
// without blocking (O_NONBLOCK: a FIFO planted there).
func readAt(dir int, name string, max int64) ([]byte, error) {
	fd, err := openFDAt(dir, name, unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	return readOpenedSmall(os.NewFile(uintptr(fd), name), name, max)
}

// StatAt is os.Lstat of name in the open directory dir, without resolving
// the directory's path again (fstatat); its Sys is a *syscall.Stat_t.
func StatAt(dir *os.File, name string) (fs.FileInfo, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	if cerr := conn.Control(func(fd uintptr) { fi, err = fstatAt(int(fd), name) }); cerr != nil {
		return nil, cerr
	}
	return fi, err
}

// fstatAt stats name inside dir without following a symlink.
func fstatAt(dir int, name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "fstatat", Path: name, Err: err}
	}
	// both are the kernel's struct stat of this platform
	return statInfo{name: name, st: *(*syscall.Stat_t)(unsafe.Pointer(&st))}, nil
}

var _ = [1]struct{}{}[unsafe.Sizeof(unix.Stat_t{})-unsafe.Sizeof(syscall.Stat_t{})] // same size

// statInfo is an fs.FileInfo of a stat(2) result; Sys is its *syscall.Stat_t.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (i statInfo) Name() string       { return i.name }
func (i statInfo) Size() int64        { return i.st.Size }
func (i statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i statInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i statInfo) Sys() any           { return &i.st }
func (i statInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	case syscall.S_IFIFO:
		m |= fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		m |= fs.ModeSocket
	case syscall.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		m |= fs.ModeDevice
	}
	if i.st.Mode&syscall.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if i.st.Mode&syscall.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if i.st.Mode&syscall.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
