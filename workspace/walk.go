package workspace

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
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
	ps := append([]gitignore.Pattern(nil), ig.base...)
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
	defer dir.Close()
	err = ig.walkConfined(ctx, dir, start, parts, ps, false, fn, hidden)
	if err == fs.SkipAll {
		return nil
	}
	return err
}

// walkConfined walks the open directory dir (rel, parts); ps are the
// patterns that apply in it, without its own pattern files' unless ownIn
// (then they are read here, only when the listing has them: a directory
// without a .gitignore costs no failed open).
func (ig *Ignore) walkConfined(ctx context.Context, dir *os.File, rel string, parts []string, ps []gitignore.Pattern, ownIn bool, fn WalkFunc, hidden func(string, fs.DirEntry)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := dir.ReadDir(-1)
	if err != nil && len(entries) == 0 {
		return nil // vanished or unreadable: skip
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if ownIn {
		listed := func(name string) bool {
			_, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
			return found
		}
		own := ig.cachedPatterns(rel, func(p string) ([]byte, error) {
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
	var m gitignore.Matcher
	if len(ps) > 0 {
		m = gitignore.NewMatcher(ps)
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		childRel := name
		if rel != "." {
			childRel = rel + "/" + name
		}
		var child []string // the path's elements, for the patterns and a directory's walk
		if m != nil || e.IsDir() {
			child = append(parts[:len(parts):len(parts)], name)
		}
		if m != nil && m.Match(child, e.IsDir()) {
			if hidden != nil {
				hidden(childRel, e)
			}
			continue
		}
		err := fn(childRel, atEntry{DirEntry: e, dir: dir})
		if !e.IsDir() {
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
		sub, err := openAt(dir, name, unix.O_DIRECTORY)
		if err != nil {
			continue // replaced by a symlink or a file, or vanished: skip
		}
		err = ig.walkConfined(ctx, sub, childRel, child, ps, true, fn, hidden)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// openAt opens name inside the directory dir without following a symlink
// in its place and without blocking (O_NONBLOCK, O_NOCTTY). A directory
// (flags with O_DIRECTORY) is opened without O_NONBLOCK: the kernel
// refuses anything else (a FIFO swapped in) before it would open it, and
// a blocking descriptor is not offered to the runtime's poller (one
// failed epoll_ctl per directory of a walk).
func openAt(dir *os.File, name string, flags int) (*os.File, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	if flags&unix.O_DIRECTORY == 0 {
		flags |= unix.O_NONBLOCK
	}
	fd := -1
	var oerr error
	cerr := conn.Control(func(dfd uintptr) {
		for {
			fd, oerr = unix.Openat(int(dfd), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NOCTTY|flags, 0)
			if oerr != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return nil, cerr
	}
	if oerr != nil {
		return nil, &fs.PathError{Op: "openat", Path: name, Err: oerr}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// readAt reads the regular file name of at most max bytes inside dir.
func readAt(dir *os.File, name string, max int64) ([]byte, error) {
	f, err := openAt(dir, name, 0)
	if err != nil {
		return nil, err
	}
	return readOpenedSmall(f, name, max)
}

// atEntry is a directory entry whose Info stats it through its directory's
// descriptor (an entry read from a descriptor opened by openAt has no
// path of its own to stat).
type atEntry struct {
	fs.DirEntry
	dir *os.File
}

func (e atEntry) Info() (fs.FileInfo, error) { return StatAt(e.dir, e.Name()) }

// StatAt is os.Lstat of name in the open directory dir, without resolving
// the directory's path again (fstatat); its Sys is a *syscall.Stat_t.
func StatAt(dir *os.File, name string) (fs.FileInfo, error) {
	conn, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	var serr error
	if cerr := conn.Control(func(fd uintptr) {
		serr = unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}); cerr != nil {
		return nil, cerr
	}
	if serr != nil {
		return nil, &fs.PathError{Op: "fstatat", Path: name, Err: serr}
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
func (i statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Sec, i.st.Mtim.Nsec) }
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
