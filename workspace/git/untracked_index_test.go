package git

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestIndexPathsIgnoresStatData (issue 35): what decides which files are
// untracked — the index's entries — is read from every index git writes
// (versions 2, 3 with extended flags, 4 with compressed paths; SHA-1 and
// SHA-256), stays the same when git only refreshes the entries' stat data
// (git diff does, unasked), and changes when an entry is added, removed
// or changes mode or stage.
func TestIndexPathsIgnoresStatData(t *testing.T) {
	for _, tc := range []struct {
		name string
		init []string
		prep [][]string
	}{
		{"v2", []string{"init", "-q"}, [][]string{{"update-index", "--index-version", "2"}}},
		{"v3", []string{"init", "-q"}, [][]string{{"add", "-N", "later.txt"}}},
		{"v4", []string{"init", "-q"}, [][]string{{"update-index", "--index-version", "4"}}},
		{"sha256", []string{"init", "-q", "--object-format=sha256"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitT(t, dir, tc.init...)
			for _, p := range []string{"a.go", "pkg/b.go", "pkg/deep/c.go", "pkg/deep/ccc.go", "later.txt", "x.sh"} {
				writeFile(t, filepath.Join(dir, p), p+"\n")
			}
			gitT(t, dir, "add", "a.go", "pkg", "x.sh")
			gitT(t, dir, "commit", "-qm", "init")
			for _, args := range tc.prep {
				gitT(t, dir, args...)
			}
			index := filepath.Join(dir, ".git", "index")
			first := indexPaths(index)
			if first == "" {
				t.Fatal("the index was not parsed")
			}
			// A refresh: a file touched, its content unchanged, and git diff.
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(filepath.Join(dir, "pkg", "b.go"), later, later); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "new.txt"), "new\n")
			raw := readFile(t, index)
			gitT(t, dir, "diff", "--name-only", "HEAD")
			if readFile(t, index) == raw {
				t.Fatal("git diff did not refresh the index")
			}
			if got := indexPaths(index); got != first {
				t.Errorf("a refresh of stat data changed the entries: %q → %q", first, got)
			}
			for _, step := range [][]string{{"rm", "-q", "--cached", "pkg/deep/c.go"}, {"update-index", "--chmod=+x", "x.sh"}, {"add", "new.txt"}} {
				prev := indexPaths(index)
				gitT(t, dir, step...)
				if got := indexPaths(index); got == prev || got == "" {
					t.Errorf("git %v: entries %q → %q", step, prev, got)
				}
			}
		})
	}
}

// TestSplitIndexNotRead: a split index keeps entries in another file, so
// it is not read (its callers ask git instead).
func TestSplitIndexNotRead(t *testing.T) {
	dir := t.TempDir()
	gitT(t, dir, "init", "-q")
	writeFile(t, filepath.Join(dir, "a.go"), "package a\n")
	gitT(t, dir, "add", "a.go")
	gitT(t, dir, "update-index", "--split-index")
	if readIndex(filepath.Join(dir, ".git", "index"), func(*indexEntry) {}) {
		t.Error("a split index was read")
	}
}
