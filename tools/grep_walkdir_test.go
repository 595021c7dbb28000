package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// openFDs counts this process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestGrepReleasesFolders: a search opens each file relative to its
// folder, held open by the walk until the file is read; every folder is
// closed when the search ends, whether it found something, was ignored,
// or was a binary, empty or unreadable file.
func TestGrepReleasesFolders(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i), "e")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sub, "a.go"), []byte("package a // needle\n"), 0o644)
		os.WriteFile(filepath.Join(sub, "b.bin"), []byte("needle\x00"), 0o644)
		os.WriteFile(filepath.Join(sub, "empty"), nil, 0o644)
		os.WriteFile(filepath.Join(sub, "locked"), []byte("needle"), 0o000)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("d1*/\n"), 0o644)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m, err := newMatcher("needle", false)
	if err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	for _, glob := range []string{"", "**/*.go"} {
		got, err := Search(context.Background(), root, workspace.NewIgnore(root), workspace.DefaultGate(), m, glob)
		if err != nil {
			t.Fatal(err)
		}
		want := 30 // d10–d19 ignored; binary files and the locked one (as root: read) aside
		if os.Geteuid() == 0 && glob == "" {
			want = 60
		}
		if len(got) != want {
			t.Errorf("glob %q: %d matches, want %d", glob, len(got), want)
		}
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d descriptors open before the searches, %d after", before, after)
	}
}
