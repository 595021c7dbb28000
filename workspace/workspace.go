// Package workspace is the workspace on disk: file access confined to a root
// directory (os.Root), the ignore rules (.gitignore, .git/info/exclude,
// .autarchignore), the sensitive-content gate and binary detection.
package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Root is a directory every access is confined to: paths with "..", absolute
// paths outside it, and symlinks that leave it are refused.
type Root struct {
	dir  string
	root *os.Root
}

// Open confines access to dir.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening workspace root: %w", err)
	}
	return &Root{dir: abs, root: r}, nil
}

// Dir is the root's absolute path.
func (r *Root) Dir() string { return r.dir }

// Close releases the root.
func (r *Root) Close() error { return r.root.Close() }

// ErrOutside is returned for paths that leave the root.
var ErrOutside = errors.New("path is outside the workspace")

// Clean turns a path given by the model or a user into a clean,
// slash-separated path relative to the root ("." for the root itself).
// Relative paths are taken from the root; absolute paths must lie inside it.
func (r *Root) Clean(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty path: give a path relative to the workspace root")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q contains a NUL byte", p)
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		rel, err := filepath.Rel(r.dir, filepath.Clean(native))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			return "", fmt.Errorf("%w: %q is not under %s; use a path relative to the workspace root", ErrOutside, p, r.dir)
		}
		native = rel
	}
	clean := filepath.Clean(native)
	if clean != "." && !filepath.IsLocal(clean) {
		return "", fmt.Errorf("%w: %q escapes the workspace root; use a path inside it", ErrOutside, p)
	}
	return filepath.ToSlash(clean), nil
}

// Abs returns the absolute path of a clean relative path.
func (r *Root) Abs(rel string) string { return filepath.Join(r.dir, filepath.FromSlash(rel)) }

// explain rewrites os.Root's escape errors into one naming the path.
func explain(rel string, err error) error {
	if err == nil {
		return nil
	}
	if isPathEscape(err) {
		return fmt.Errorf("%w: %q resolves outside the workspace (through a symlink or ..)", ErrOutside, rel)
	}
	return err
}

// isPathEscape reports whether err is os.Root's refusal of a path that
// leaves the root, by identity (errors.Is) with the error os.Root returns.
func isPathEscape(err error) bool {
	if sentinel := rootEscapeError(); sentinel != nil {
		return errors.Is(err, sentinel)
	}
	return strings.Contains(err.Error(), "path escapes from parent") // no sentinel on this platform
}

// rootEscapeError is os.Root's (unexported) error for a path that escapes
// the root, taken once from a call that fails with it: an absolute name,
// refused before any file is touched.
var rootEscapeError = sync.OnceValue(func() error {
	r, err := os.OpenRoot(string(filepath.Separator))
	if err != nil {
		return nil
	}
	defer r.Close()
	_, err = r.Lstat(string(filepath.Separator))
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return nil
	}
	return pe.Err
})

// ReadFile reads a whole regular file of at most MaxReadSize bytes without
// ever blocking: named pipes, sockets and devices give a NotRegularError,
// larger files a TooLargeError (see ReadFileLimit).
func (r *Root) ReadFile(rel string) ([]byte, error) {
	return r.ReadFileLimit(rel, MaxReadSize)
}

// Stat follows symlinks (inside the root).
func (r *Root) Stat(rel string) (fs.FileInfo, error) {
	fi, err := r.root.Stat(filepath.FromSlash(rel))
	return fi, explain(rel, err)
}

// Lstat does not follow a final symlink.
func (r *Root) Lstat(rel string) (fs.FileInfo, error) {
	fi, err := r.root.Lstat(filepath.FromSlash(rel))
	return fi, explain(rel, err)
}

// ReadDir lists a directory, sorted by name.
func (r *Root) ReadDir(rel string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(r.root.FS(), filepath.ToSlash(rel))
	return entries, explain(rel, err)
}

// Remove deletes a file or an empty directory.
func (r *Root) Remove(rel string) error {
	return explain(rel, r.root.Remove(filepath.FromSlash(rel)))
}

// WriteFile replaces a file atomically: the data goes to a temporary file in
// the same directory that is then renamed over the target, so readers see
// the old or the new content, never a mix. An existing file keeps its mode;
// a new one gets 0644. Missing parent directories are created. Only a
// regular file is replaced: a named pipe, socket or device in its place
// gives a NotRegularError.
func (r *Root) WriteFile(rel string, data []byte) error {
	native := filepath.FromSlash(rel)
	mode := fs.FileMode(0o644)
	switch fi, err := r.root.Stat(native); {
	case err == nil:
		if err := r.checkWritable(rel, fi); err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return explain(rel, err) // e.g. a symlink leading outside
	}
	if dir := filepath.Dir(native); dir != "." {
		if err := r.root.MkdirAll(dir, 0o755); err != nil {
			return explain(rel, err)
		}
	}
	tmp := filepath.Join(filepath.Dir(native), "."+filepath.Base(native)+".autarch-"+randomSuffix())
	f, err := r.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return explain(rel, err)
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		r.root.Remove(tmp)
		return fmt.Errorf("writing %s: %w", rel, err)
	}
	if err := r.root.Chmod(tmp, mode); err != nil {
		r.root.Remove(tmp)
		return explain(rel, err)
	}
	if err := r.root.Rename(tmp, native); err != nil {
		r.root.Remove(tmp)
		return explain(rel, err)
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Base returns the last element of a slash path.
func Base(rel string) string { return path.Base(rel) }

// ReadWalked reads a regular file that Walk reported, reusing buf. Walk
// never follows symlinks, so such a path stays inside the root; the final
// component is opened with O_NOFOLLOW, and with O_NONBLOCK and O_NOCTTY so
// that a named pipe or a terminal cannot block the open. Files over max
// bytes, and anything that is not a regular file, give (nil, nil). Raw
// system calls keep this fast path free of the runtime poller's per-file
// cost.
func (r *Root) ReadWalked(rel string, buf []byte, max int64) ([]byte, error) {
	var f WalkedFile
	defer f.Close()
	return r.OpenWalked(&f, rel, buf, max)
}

// Stamp identifies one version of a file: writing it changes its size,
// modification time or change time (ctime cannot be set from user space).
// The zero Stamp identifies nothing.
type Stamp struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

func stampOf(st *syscall.Stat_t) Stamp {
	return Stamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// StampOf is the Stamp of a file described by fi (from Stat on an open
// file); zero when fi carries no system metadata.
func StampOf(fi fs.FileInfo) Stamp {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return stampOf(st)
	}
	return Stamp{}
}

// ReadFileStamp is ReadFileLimit that also returns the file's Stamp, zero
// when the file changed while it was read.
func (r *Root) ReadFileStamp(rel string, max int64) ([]byte, Stamp, error) {
	f, fi, err := r.OpenRegular(rel)
	if err != nil {
		return nil, Stamp{}, err
	}
	defer f.Close()
	data, err := readLimit(f, fi, rel, max)
	if err != nil {
		return nil, Stamp{}, err
	}
	stamp := StampOf(fi)
	if after, err := f.Stat(); err != nil || StampOf(after) != stamp || int64(len(data)) != fi.Size() {
		stamp = Stamp{}
	}
	return data, stamp, nil
}

// ReadWalkedStamp is ReadWalked that also returns the file's Stamp, zero
// when the file changed while it was read.
func (r *Root) ReadWalkedStamp(rel string, buf []byte, max int64) ([]byte, Stamp, error) {
	var f WalkedFile
	data, err := r.OpenWalked(&f, rel, buf, max)
	defer f.Close()
	if err != nil || data == nil {
		return data, Stamp{}, err
	}
	return data, f.Stamp(), nil
}

// WalkedFile is a file read by OpenWalked and still open, so that its
// Stamp is checked (one more fstat) only when a caller needs it. The zero
// value is closed; one WalkedFile may be reused for file after file.
type WalkedFile struct {
	fd    int
	open  bool
	read  int
	st    syscall.Stat_t
	stamp Stamp
	cname []byte // the name being opened, NUL-terminated (see openAt)
}

// OpenWalked reads a regular file that Walk reported, as ReadWalked does,
// into buf, and leaves it open in f for Stamp; the caller closes f.
func (r *Root) OpenWalked(f *WalkedFile, rel string, buf []byte, max int64) ([]byte, error) {
	data, _, err := r.openWalked(f, rel, buf, max, false)
	return data, err
}

// OpenWalkedText is OpenWalked for a reader of text files: it reads the
// part of the file IsBinary looks at first and, when that is binary,
// stops there and reports binary (no data: buf emptied, to reuse), so
// that a search reads no more of an archive or an image than that.
func (r *Root) OpenWalkedText(f *WalkedFile, rel string, buf []byte, max int64) (data []byte, binary bool, err error) {
	return r.openWalked(f, rel, buf, max, true)
}

func (r *Root) openWalked(f *WalkedFile, rel string, buf []byte, maxSize int64, text bool) ([]byte, bool, error) {
	f.Close()
	fd, err := syscall.Open(r.Abs(rel), syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, false, fmt.Errorf("opening %s: %w", rel, err)
	}
	return f.readOpened(fd, rel, buf, maxSize, text)
}

// readOpened reads the file just opened as fd for openWalked.
func (f *WalkedFile) readOpened(fd int, rel string, buf []byte, maxSize int64, text bool) ([]byte, bool, error) {
	f.fd, f.open = fd, true
	if err := syscall.Fstat(fd, &f.st); err != nil {
		return nil, false, fmt.Errorf("stat %s: %w", rel, err)
	}
	if f.st.Mode&syscall.S_IFMT != syscall.S_IFREG || f.st.Size > maxSize {
		return nil, false, nil
	}
	n := int(f.st.Size)
	if cap(buf) < n {
		// Grown at least twofold: a worker meets ever larger files, and
		// a new buffer for each new largest one would add up to many
		// times the largest (and as many page faults).
		buf = make([]byte, 0, min(max(n+4096, 2*cap(buf)), int(maxSize)+4096))
	}
	buf = buf[:n]
	read := 0
	if text && n > binaryPrefix {
		var err error
		if read, err = readFull(fd, buf[:binaryPrefix]); err != nil {
			return nil, false, fmt.Errorf("reading %s: %w", rel, err)
		}
		if IsBinary(buf[:read]) {
			return buf[:0], true, nil
		}
	}
	m, err := readFull(fd, buf[read:])
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", rel, err)
	}
	read += m
	f.read, f.stamp = read, stampOf(&f.st)
	if text && IsBinary(buf[:read]) {
		return buf[:0], true, nil
	}
	return buf[:read], false, nil
}

// readFull reads into buf until it is full or the file ends.
func readFull(fd int, buf []byte) (int, error) {
	read := 0
	for read < len(buf) {
		m, err := syscall.Read(fd, buf[read:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return read, err
		}
		if m == 0 {
			break
		}
		read += m
	}
	return read, nil
}

// Stamp is the version of the file as read, or the zero Stamp when it
// changed while it was read (or is closed).
func (f *WalkedFile) Stamp() Stamp {
	var after syscall.Stat_t
	if !f.open || int64(f.read) != f.st.Size || syscall.Fstat(f.fd, &after) != nil || stampOf(&after) != f.stamp {
		return Stamp{}
	}
	return f.stamp
}

// Close closes the file (a closed or zero WalkedFile is left as is).
func (f *WalkedFile) Close() {
	if f.open {
		syscall.Close(f.fd)
		f.open = false
	}
}
