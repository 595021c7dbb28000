package workspace

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// promptly fails the test when fn does not return within a few seconds: a
// FIFO or device that blocks must show up as a failure, not a hung run.
func promptly[T any](t *testing.T, what string, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10s (blocked on a FIFO or device?)", what)
		var zero T
		return zero
	}
}

// attackRoot is a workspace with every kind of file an attacker can plant.
// The device node (like /dev/zero) and the socket exist only where they
// could be made.
func attackRoot(t testing.TB) (r *Root, outside string) {
	t.Helper()
	base := t.TempDir()
	outside = filepath.Join(base, "outside")
	dir := filepath.Join(base, "ws")
	for _, d := range []string{outside, filepath.Join(dir, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("OUTSIDE"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Symlink("fifo", filepath.Join(dir, "fifo-link")))
	must(os.Symlink(outside, filepath.Join(dir, "out")))
	testkit.PlantEndlessFiles(t, dir)
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		t.Cleanup(func() { l.Close() })
	}
	return openRoot(t, dir), outside
}

func TestReadOnlyRegularFiles(t *testing.T) {
	r, _ := attackRoot(t)
	tests := []struct {
		path   string
		target error  // errors.Is target; nil: success
		want   string // in the message
		needs  string // file that must exist, else skip
	}{
		{"a.txt", nil, "", ""},
		{"fifo", ErrNotRegular, "fifo is a named pipe (FIFO), not a regular file; only regular files can be read", ""},
		{"fifo-link", ErrNotRegular, "named pipe (FIFO)", ""},
		{"zero", ErrOutside, "resolves outside the workspace", ""},
		{"out/secret.txt", ErrOutside, "resolves outside the workspace", ""},
		{"zerodev", ErrNotRegular, "zerodev is a character device, not a regular file", "zerodev"},
		{"sock", ErrNotRegular, "sock is a socket, not a regular file", "sock"},
		{"sub", ErrNotRegular, "sub is a directory", ""},
		{"sparse.img", ErrTooLarge, "sparse.img is a binary file of 20.0 GB (21474836480 bytes), over the 16.0 MB limit", ""},
		{"huge.log", ErrTooLarge, "huge.log is 20.0 GB (21474836480 bytes), over the 16.0 MB limit for reading a file whole", ""},
		{"missing", fs.ErrNotExist, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if tt.needs != "" {
				if _, err := r.Lstat(tt.needs); err != nil {
					t.Skipf("cannot make %s here: %v", tt.needs, err)
				}
			}
			type result struct {
				data []byte
				err  error
			}
			res := promptly(t, "ReadFile("+tt.path+")", func() result {
				b, err := r.ReadFile(tt.path)
				return result{b, err}
			})
			if tt.target == nil {
				if res.err != nil || string(res.data) != "one\ntwo\n" {
					t.Fatalf("ReadFile = %q, %v", res.data, res.err)
				}
				return
			}
			if !errors.Is(res.err, tt.target) || !strings.Contains(errString(res.err), tt.want) {
				t.Fatalf("ReadFile(%s) = %q, %v; want %v containing %q", tt.path, res.data, res.err, tt.target, tt.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestReadFileLimitBoundsGrowth(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("0123456789"), 0o644)
	r := openRoot(t, dir)
	tests := []struct {
		max  int64
		want string
		err  error
	}{
		{10, "0123456789", nil},
		{100, "0123456789", nil},
		{9, "", ErrTooLarge},
		{0, "", ErrTooLarge},
	}
	for _, tt := range tests {
		b, err := r.ReadFileLimit("f", tt.max)
		if string(b) != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("ReadFileLimit(f, %d) = %q, %v; want %q, %v", tt.max, b, err, tt.want, tt.err)
		}
	}
}

func TestWriteRefusesIrregularFiles(t *testing.T) {
	r, outside := attackRoot(t)
	tests := []struct {
		path   string
		target error
	}{
		{"fifo", ErrNotRegular},
		{"fifo-link", ErrNotRegular},
		{"zerodev", ErrNotRegular},
		{"sock", ErrNotRegular},
		{"zero", ErrOutside},
		{"out/new.txt", ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			fi, err := r.Lstat(tt.path)
			if err != nil && !errors.Is(err, ErrOutside) {
				t.Skipf("%s: %v", tt.path, err)
			}
			err = promptly(t, "WriteFile("+tt.path+")", func() error { return r.WriteFile(tt.path, []byte("x")) })
			if !errors.Is(err, tt.target) {
				t.Fatalf("WriteFile(%s) = %v, want %v", tt.path, err, tt.target)
			}
			if fi != nil {
				if after, _ := r.Lstat(tt.path); after == nil || after.Mode().Type() != fi.Mode().Type() {
					t.Fatalf("%s was replaced", tt.path)
				}
			}
		})
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("something was written outside: %v", entries)
	}
}

func TestReadWalkedSkipsFIFO(t *testing.T) {
	r, _ := attackRoot(t)
	for _, name := range []string{"fifo", "sock", "zerodev"} {
		err := promptly(t, "ReadWalked("+name+")", func() error {
			if b, _ := r.ReadWalked(name, nil, 1<<20); b != nil {
				return errors.New("read content")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("ReadWalked(%s): %v", name, err)
		}
	}
}

func walkNames(t *testing.T, ig *Ignore, start string) ([]string, error) {
	t.Helper()
	var names []string
	err := ig.WalkConfined(context.Background(), start, func(rel string, d fs.DirEntry) error {
		names = append(names, rel)
		return nil
	})
	return names, err
}

func TestWalkConfinedNeverFollowsSymlinks(t *testing.T) {
	r, _ := attackRoot(t)
	ig := NewIgnore(r)
	names, err := walkNames(t, ig, ".")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(names, ",")
	if !strings.Contains(got, "out,") || strings.Contains(got, "secret.txt") {
		t.Fatalf("walk = %s: want the symlink out listed and nothing under it", got)
	}
	if _, err := walkNames(t, ig, "out"); !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "resolves outside the workspace") {
		t.Fatalf("walking out = %v, want ErrOutside", err)
	}
	if _, err := walkNames(t, ig, "a.txt"); err == nil || !strings.Contains(err.Error(), "a.txt is a regular file, not a directory") {
		t.Fatalf("walking a file = %v", err)
	}
}

// TestWalkConfinedRace flips a directory to a symlink leading outside while
// walking: no name from outside may ever be reported.
func TestWalkConfinedRace(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	dir := filepath.Join(base, "ws")
	os.MkdirAll(filepath.Join(outside, "deep"), 0o755)
	os.WriteFile(filepath.Join(outside, "OUTSIDE-NAME"), nil, 0o644)
	os.WriteFile(filepath.Join(outside, "deep", "OUTSIDE-DEEP"), nil, 0o644)
	os.MkdirAll(filepath.Join(dir, "d", "deep"), 0o755)
	os.WriteFile(filepath.Join(dir, "d", "inside"), nil, 0o644)
	r := openRoot(t, dir)
	ig := NewIgnore(r)
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		d, moved, link := filepath.Join(dir, "d"), filepath.Join(dir, "d.moved"), filepath.Join(dir, "d.link")
		os.Symlink(outside, link)
		for !stop.Load() {
			os.Rename(d, moved)
			os.Rename(link, d) // d is now a symlink to outside
			os.Rename(d, link)
			os.Rename(moved, d)
		}
	}()
	deadline := time.Now().Add(time.Second)
	for n := 0; time.Now().Before(deadline) || n < 200; n++ {
		for _, start := range []string{".", "d", "d/deep"} {
			names, _ := walkNames(t, ig, start)
			for _, name := range names {
				if strings.Contains(name, "OUTSIDE") {
					stop.Store(true)
					wg.Wait()
					t.Fatalf("walk of %s reported %s from outside the workspace", start, name)
				}
			}
		}
	}
	stop.Store(true)
	wg.Wait()
}

// FuzzConfinedOpen: whatever the path, reading and listing stay inside the
// root, never block on the FIFO, and never load more than the limit.
func FuzzConfinedOpen(f *testing.F) {
	for _, s := range []string{"a.txt", "fifo", "fifo-link", "zero", "out", "out/secret.txt", "sub/../out", "sparse.img", "huge.log", ".", "..", "/dev/zero", "sub/../../ws/a.txt", "zerodev", "sock"} {
		f.Add(s)
	}
	r, outside := attackRoot(f)
	ig := NewIgnore(r)
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := r.Clean(p)
		if err != nil {
			rel = p
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if b, err := r.ReadFile(rel); err == nil && (strings.Contains(string(b), "OUTSIDE") || len(b) > MaxReadSize) {
				t.Errorf("read %d bytes or outside content through %q", len(b), p)
			}
			if f, _, err := r.OpenRegular(rel); err == nil {
				f.Close()
			}
			ig.WalkConfined(context.Background(), rel, func(name string, d fs.DirEntry) error {
				if strings.Contains(name, "secret") {
					t.Errorf("listed %s from outside through %q", name, p)
				}
				return nil
			})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("access to %q blocked", p)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 1 {
			t.Fatalf("outside changed through %q", p)
		}
	})
}
