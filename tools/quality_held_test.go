package tools

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// TestTreePrintMoved: what counts as the gates changing a listed file.
// Content decides for regular files (the same bytes written again are
// no change); a swapped kind, a new, a missing or a vanished path are.
func TestTreePrintMoved(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, dir string)
		later  []string // listed after (nil: as before)
		moved  []string
	}{
		{"nothing", func(*testing.T, string) {}, nil, nil},
		{"same bytes written again", func(t *testing.T, dir string) { heldWrite(t, dir, "a.go", "package a\n") }, nil, nil},
		{"content", func(t *testing.T, dir string) { heldWrite(t, dir, "a.go", "package b\n") }, nil, []string{"a.go"}},
		{"same size, mtime put back", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "a.go")
			fi, _ := os.Stat(p)
			heldWrite(t, dir, "a.go", "package z\n")
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}, nil, []string{"a.go"}},
		{"removed", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "a.go")) }, []string{"b.go"}, []string{"a.go"}},
		{"listed anew", func(t *testing.T, dir string) { heldWrite(t, dir, "c.go", "package c\n") }, []string{"a.go", "b.go", "c.go"}, []string{"c.go"}},
		{"made a symlink", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "b.go"))
			os.Symlink("a.go", filepath.Join(dir, "b.go"))
		}, nil, []string{"b.go"}},
		{"made a FIFO", func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "b.go"))
			if err := syscall.Mkfifo(filepath.Join(dir, "b.go"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil, []string{"b.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			heldWrite(t, dir, "a.go", "package a\n")
			heldWrite(t, dir, "b.go", "package b\n")
			root, err := workspace.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			s := &Session{root: root}
			before := []string{"a.go", "b.go"}
			was := s.treePrint(before)
			tc.change(t, dir)
			later := tc.later
			if later == nil {
				later = before
			}
			if got := was.moved(root, later); !slices.Equal(got, tc.moved) {
				t.Errorf("moved = %q, want %q", got, tc.moved)
			}
		})
	}
}

func heldWrite(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
