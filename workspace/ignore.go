package workspace

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// IgnoreFiles are the per-directory files whose patterns (gitignore syntax)
// hide paths from listing, searching and indexing.
var ignoreFiles = [...]string{".gitignore", ".autarchignore"}

// Ignore answers whether a path is ignored by the workspace's rules: nested
// .gitignore and .autarchignore files, .git/info/exclude, and .git itself.
// Pattern files are read lazily, once per directory.
type Ignore struct {
	root *Root
	mu   sync.Mutex
	dirs map[string][]ignorePattern
	base []ignorePattern
}

// NewIgnore loads the repository-wide excludes of r.
func NewIgnore(r *Root) *Ignore {
	ig := &Ignore{root: r, dirs: map[string][]ignorePattern{}}
	if data, err := ReadSmallFile(infoExclude(r.Dir()), maxPatternFile); err == nil {
		ig.base = parsePatterns(data, nil)
	}
	return ig
}

// infoExclude finds .git/info/exclude, also for linked worktrees whose .git
// is a file pointing into the main repository.
func infoExclude(dir string) string {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil || fi.IsDir() {
		return filepath.Join(dotgit, "info", "exclude")
	}
	_, common, err := ReadGitFile(dir)
	if err != nil {
		return ""
	}
	return filepath.Join(common, "info", "exclude")
}

func parsePatterns(data []byte, domain []string) []ignorePattern {
	var ps []ignorePattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, parseIgnorePattern(line, domain))
	}
	return ps
}

// patterns returns the patterns defined in one directory (slash path, ""
// for the root), reading its pattern files through the confined root.
func (ig *Ignore) patterns(dir string) []ignorePattern {
	return ig.cachedPatterns(dir, func(rel string) ([]byte, error) { return ig.root.ReadFile(rel) })
}

// cachedPatterns loads a directory's pattern files once.
func (ig *Ignore) cachedPatterns(dir string, read func(rel string) ([]byte, error)) []ignorePattern {
	ig.mu.Lock()
	ps, ok := ig.dirs[dir]
	ig.mu.Unlock()
	if ok {
		return ps
	}
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	for _, name := range ignoreFiles {
		rel := name
		if dir != "" {
			rel = dir + "/" + name
		}
		if data, err := read(rel); err == nil {
			ps = append(ps, parsePatterns(data, domain)...)
		}
	}
	ig.mu.Lock()
	ig.dirs[dir] = ps
	ig.mu.Unlock()
	return ps
}

// Match reports whether rel (clean, slash-separated) is ignored, either
// itself or because a directory above it is.
func (ig *Ignore) Match(rel string, isDir bool) bool {
	if rel == "." || rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if ig.matchParts(parts[:i], true) {
			return true
		}
	}
	return ig.matchParts(parts, isDir)
}

// matchParts matches one path against the patterns of its ancestors only
// (the caller knows its ancestors are not ignored).
func (ig *Ignore) matchParts(parts []string, isDir bool) bool {
	if parts[0] == ".git" {
		return true
	}
	ps := append([]ignorePattern(nil), ig.base...)
	ps = append(ps, ig.patterns("")...)
	for i := 1; i < len(parts); i++ {
		ps = append(ps, ig.patterns(strings.Join(parts[:i], "/"))...)
	}
	dir := parts[:len(parts)-1]
	return newDirMatcher(dir, ps).match(parts[len(parts)-1], isDir, func() []string { return parts })
}

// WalkFunc is called for every entry Walk visits; returning fs.SkipDir on a
// directory skips it, fs.SkipAll stops the walk quietly, any other error
// stops it and is returned.
type WalkFunc func(rel string, d fs.DirEntry) error

// Walk visits the files and directories under start (a clean relative path,
// "." for the root) that are not ignored, in lexical order, without
// following symlinks, through the confined root (WalkConfined): a directory
// swapped for a symlink during the walk is skipped. Unreadable directories
// are skipped.
func (ig *Ignore) Walk(ctx context.Context, start string, fn WalkFunc) error {
	return ig.WalkConfined(ctx, start, fn)
}
