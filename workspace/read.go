package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"unsafe"
)

// MaxReadSize is the largest file ReadFile loads. Reads, edits and the
// secret gate all see a file whole, so a file is read entirely or not at
// all; larger files are refused with a TooLargeError before a byte is read.
const MaxReadSize = 16 << 20

// binaryPeek is how much of a refused large file is read to tell whether it
// is binary (IsBinary looks at the first 8 KB).
const binaryPeek = 8 << 10

var (
	// ErrNotRegular matches a NotRegularError.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge matches a TooLargeError.
	ErrTooLarge = errors.New("file too large")
)

// NotRegularError refuses a named pipe, socket, device, directory or other
// irregular file: reading a FIFO blocks until someone writes, reading a
// device may never end.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
	// Op is "read" or "written".
	Op string
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; only regular files can be %s", e.Path, KindOf(e.Mode), e.Op)
}

// Is makes errors.Is(err, ErrNotRegular) hold.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError refuses a file over the read limit.
type TooLargeError struct {
	Path        string
	Size, Limit int64
	// Binary is set when the file's start looks binary.
	Binary bool
}

func (e *TooLargeError) Error() string {
	if e.Binary {
		return fmt.Sprintf("%s is a binary file of %s (%d bytes), over the %s limit; only text files can be read", e.Path, humanSize(e.Size), e.Size, humanSize(e.Limit))
	}
	return fmt.Sprintf("%s is %s (%d bytes), over the %s limit for reading a file whole; it cannot be read or edited with the file tools: find what you need with grep or search_code, or look at parts of it with shell commands (head, sed -n '100,200p', grep -n) where you have the shell", e.Path, humanSize(e.Size), e.Size, humanSize(e.Limit))
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// KindOf names the kind of file a mode describes, with its article: "a
// named pipe (FIFO)", "a socket", "a character device", "a directory"…
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeDir != 0:
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	default:
		return "an irregular file"
	}
}

func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// OpenRegular opens a regular file for reading through the confined root
// and never blocks doing so. Its metadata is checked before the open (a
// device is not even opened), the open uses O_NONBLOCK (a FIFO without a
// writer would block an O_RDONLY open forever) and O_NOCTTY, and the opened
// descriptor is checked again with fstat, so a file swapped in between is
// caught. Anything but a regular file gives a NotRegularError.
func (r *Root) OpenRegular(rel string) (*os.File, fs.FileInfo, error) {
	native := filepath.FromSlash(rel)
	fi, err := r.root.Stat(native)
	if err != nil {
		return nil, nil, explain(rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, &NotRegularError{Path: rel, Mode: fi.Mode(), Op: "read"}
	}
	f, err := r.root.OpenFile(native, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, explain(rel, err)
	}
	if fi, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("reading %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: rel, Mode: fi.Mode(), Op: "read"}
	}
	return f, fi, nil
}

// ReadFileLimit reads a whole regular file of at most max bytes. The size
// is checked from fstat before reading, and the read stops at max+1 bytes
// should the file grow meanwhile, so memory stays bounded by max.
func (r *Root) ReadFileLimit(rel string, max int64) ([]byte, error) {
	f, fi, err := r.OpenRegular(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimit(f, fi, rel, max)
}

// readLimit reads an open regular file whole, as ReadFileLimit does.
func readLimit(f *os.File, fi fs.FileInfo, rel string, max int64) ([]byte, error) {
	if size := fi.Size(); size > max {
		head := make([]byte, binaryPeek)
		n, _ := io.ReadFull(f, head)
		return nil, &TooLargeError{Path: rel, Size: size, Limit: max, Binary: IsBinary(head[:n])}
	}
	// Files whose size fstat does not know (some pseudo files report 0)
	// still stop at the limit.
	limit := max + 1
	buf := make([]byte, 0, min(fi.Size()+512, limit))
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf))+512, limit-int64(len(buf)))))
		}
		n, err := f.Read(buf[len(buf):min(int64(cap(buf)), limit)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", rel, err)
		}
	}
	if int64(len(buf)) > max {
		return nil, &TooLargeError{Path: rel, Size: int64(len(buf)), Limit: max}
	}
	return buf, nil
}

// checkWritable refuses to replace something that is not a regular file
// (a FIFO, socket or device someone planted in place of a source file).
// A missing file is writable; a directory is reported as such.
func (r *Root) checkWritable(rel string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsDir():
		return fmt.Errorf("%s is a directory; give the path of a file", rel)
	case !m.IsRegular():
		return &NotRegularError{Path: rel, Mode: m, Op: "written"}
	}
	return nil
}

// ReadSmallFile reads a regular file of at most max bytes by path, without
// following a final symlink and without blocking: a FIFO planted where a
// small file (a pattern file, git metadata) is expected would otherwise
// hang the reader.
func ReadSmallFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return readOpenedSmall(f, path, max)
}

// readOpenedSmall reads an opened file (and closes it) if it is a regular
// file of at most max bytes; name is what errors call it.
func readOpenedSmall(f *os.File, name string, max int64) ([]byte, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: name, Mode: fi.Mode(), Op: "read"}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{Path: name, Size: fi.Size(), Limit: max}
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// OpenWalkedTextIn is OpenWalkedText of a file the walk listed in dir (held
// with HoldWalkDir; nil: opened by its path): the file is opened relative
// to its folder's descriptor, without following a symlink in its place.
func (r *Root) OpenWalkedTextIn(f *WalkedFile, dir *WalkDir, rel string, buf []byte, max int64) (data []byte, binary bool, err error) {
	if dir == nil {
		return r.openWalked(f, rel, buf, max, true)
	}
	f.Close()
	fd, err := f.openAt(dir.fd, rel[strings.LastIndexByte(rel, '/')+1:])
	if err != nil {
		return nil, false, fmt.Errorf("opening %s: %w", rel, err)
	}
	return f.readOpened(fd, rel, buf, max, true)
}

// openAt opens name in dir as openFDAt(dir, name, O_NONBLOCK) does, with
// the name's C string in f's buffer (no allocation per file).
func (f *WalkedFile) openAt(dir int, name string) (int, error) {
	f.cname = append(append(f.cname[:0], name...), 0)
	for {
		fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(&f.cname[0])),
			uintptr(syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NOCTTY|syscall.O_NONBLOCK), 0, 0, 0)
		switch errno {
		case 0:
			return int(fd), nil
		case syscall.EINTR:
			continue
		}
		return -1, errno
	}
}
