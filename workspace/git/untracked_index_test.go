package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

// TestIndexDigestOncePerVersion (issue 35): the index's identity and its
// gitlinks, which the untracked listing and a checkpoint's gitlink checks
// read, are parsed once per version of the index file, also when the
// tracked files' pass parsed that version first; a new version (a mode
// changed, a gitlink added) is read again and its digest follows it.
func TestIndexDigestOncePerVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q")
	for _, p := range []string{"a.go", "pkg/b.go", "x.sh"} {
		writeFile(t, filepath.Join(dir, p), p+"\n")
	}
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-qm", "init")
	head := gitT(t, dir, "rev-parse", "HEAD")
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub")
	r := openRepo(t, dir)
	index := filepath.Join(dir, ".git", "index")
	parses := func() int {
		r.indexes.mu.Lock()
		defer r.indexes.mu.Unlock()
		return r.indexes.parses
	}
	first, ok := r.indexDigest(index)
	if !ok || first.paths != indexPaths(index) || !slices.Equal(first.gitlinks, []string{"sub"}) {
		t.Fatalf("digest = %+v, %v; want the paths %q and the gitlink sub", first, ok, indexPaths(index))
	}
	links, err := r.gitlinks(ctx, dir)
	if err != nil || !slices.Equal(links, []string{"sub"}) {
		t.Errorf("gitlinks = %v, %v", links, err)
	}
	if !r.noNewGitlinks(dir, []string{"sub"}) || r.noNewGitlinks(dir, nil) {
		t.Error("noNewGitlinks does not follow the index's gitlinks")
	}
	if d, _ := r.indexDigest(index); d.paths != first.paths || parses() != 1 {
		t.Errorf("one version parsed %d times (%q, then %q)", parses(), first.paths, d.paths)
	}
	// A new version, parsed by the tracked files' pass: read from there.
	gitT(t, dir, "update-index", "--chmod=+x", "x.sh")
	if _, ok := scanTracked(dir, index, nil, r.indexes); !ok {
		t.Fatal("scanTracked did not read the index")
	}
	if d, _ := r.indexDigest(index); d.paths == first.paths || d.paths != indexPaths(index) || parses() != 1 {
		t.Errorf("after a mode change and the pass: paths %q (want %q, not %q), %d parses (want 1)", d.paths, indexPaths(index), first.paths, parses())
	}
	// Another version, read by nobody yet: parsed, with its new gitlink.
	gitT(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",sub2")
	if r.noNewGitlinks(dir, []string{"sub"}) || parses() != 2 {
		t.Errorf("a new gitlink: noNewGitlinks true or %d parses (want 2)", parses())
	}
	if links, err := r.gitlinks(ctx, dir); err != nil || !slices.Equal(links, []string{"sub", "sub2"}) {
		t.Errorf("gitlinks = %v, %v", links, err)
	}
}
