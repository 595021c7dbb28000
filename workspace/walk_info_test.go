package workspace

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWalkConfinedInfo: every entry's Info describes it, at any depth
// (entries read through a descriptor have no path of their own to stat),
// with the system's stat behind it; a symlink is not followed.
func TestWalkConfinedInfo(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "top.txt"), []byte("1"), 0o644)
	os.WriteFile(filepath.Join(dir, "a", "b", "deep.txt"), []byte("four"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "a", "link"))
	r := openRoot(t, dir)
	got := map[string]fs.FileInfo{}
	err := NewIgnore(r).WalkConfined(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		fi, err := d.Info()
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		got[rel] = fi
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]struct {
		size int64
		mode fs.FileMode
	}{"top.txt": {1, 0o644}, "a/b/deep.txt": {4, 0o600}, "a/link": {11, fs.ModeSymlink | 0o777}} {
		fi := got[rel]
		if fi == nil || fi.Size() != want.size || fi.Mode() != want.mode {
			t.Errorf("%s: %v", rel, fi)
			continue
		}
		if _, ok := fi.Sys().(*syscall.Stat_t); !ok || fi.ModTime().IsZero() {
			t.Errorf("%s: no system stat", rel)
		}
	}
	if fi := got["a/b"]; fi == nil || !fi.IsDir() {
		t.Errorf("a/b: %v", fi)
	}
}
