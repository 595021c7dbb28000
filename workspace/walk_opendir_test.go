package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenAtDirectoryNeverBlocks: a walk opens each folder without
// O_NONBLOCK (O_DIRECTORY alone); whatever was swapped in for the folder
// (a FIFO without a writer, a file, a symlink) is refused at once, not
// opened, and a folder opens blocking (off the runtime's poller).
func TestOpenAtDirectoryNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644)
	os.Symlink(".", filepath.Join(dir, "link"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	parent, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	for _, tc := range []struct {
		name string
		want error
	}{
		{"fifo", unix.ENOTDIR},
		{"file", unix.ENOTDIR},
		{"link", unix.ENOTDIR},
		{"sub", nil},
	} {
		done := make(chan error, 1)
		var flags int
		go func() {
			fd, err := openDirAt(int(parent.Fd()), tc.name)
			if err == nil {
				flags, _ = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
				unix.Close(fd)
			}
			done <- err
		}()
		select {
		case err := <-done:
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
			}
			if err == nil && flags&unix.O_NONBLOCK != 0 {
				t.Errorf("%s: folder opened non-blocking", tc.name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: opening it as a folder blocked", tc.name)
		}
	}
}
