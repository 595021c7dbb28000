package workspace

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreOracle is what a walk decided before dirMatcher: go-git's matcher
// over the whole path.
func ignoreOracle(ps []ignorePattern, path []string, isDir bool) bool {
	gps := make([]gitignore.Pattern, len(ps))
	for i, p := range ps {
		gps[i] = p.Pattern
	}
	return gitignore.NewMatcher(gps).Match(path, isDir)
}

// dirMatcherDecides is dirMatcher's decision for path, as a walk and
// Ignore.Match ask it.
func dirMatcherDecides(ps []ignorePattern, path []string, isDir bool) bool {
	m := newDirMatcher(path[:len(path)-1], ps)
	if m.empty() {
		return false
	}
	return m.match(path[len(path)-1], isDir, func() []string { return path })
}

// TestDirMatcherMatchesGoGit: a folder's prepared matcher decides every
// entry as go-git's matcher does on the entry's whole path: names,
// suffixes, prefixes, globs, negations, folder-only patterns, patterns
// of nested folders (domains) and elements above the entry that match.
func TestDirMatcherMatchesGoGit(t *testing.T) {
	type pat struct {
		line   string
		domain string
	}
	for _, tc := range []struct {
		name  string
		ps    []pat
		path  string
		isDir bool
	}{
		{"plain name", []pat{{"vendor", ""}}, "a/vendor", true},
		{"plain name of a file", []pat{{"vendor", ""}}, "a/vendor", false},
		{"element above", []pat{{"vendor", ""}}, "a/vendor/x.go", false},
		{"folder only, a file", []pat{{"build/", ""}}, "a/build", false},
		{"folder only, a folder", []pat{{"build/", ""}}, "a/build", true},
		{"folder only, above a file", []pat{{"build/", ""}}, "build/x", false},
		{"suffix", []pat{{"*.log", ""}}, "x/y.log", false},
		{"suffix, the star empty", []pat{{"*.log", ""}}, ".log", false},
		{"prefix", []pat{{"tmp*", ""}}, "tmpfile", false},
		{"glob class", []pat{{"[ab]?.txt", ""}}, "d/ax.txt", false},
		{"bad pattern", []pat{{"[", ""}}, "[", false},
		{"negated after", []pat{{"*.log", ""}, {"!keep.log", ""}}, "keep.log", false},
		{"negated before", []pat{{"!keep.log", ""}, {"*.log", ""}}, "keep.log", false},
		{"negated element above", []pat{{"*.go", ""}, {"!vendor", ""}}, "vendor/x.go", false},
		{"excluded element above, file included", []pat{{"vendor", ""}, {"!*.go", ""}}, "vendor/x.go", false},
		{"domain applies", []pat{{"*.o", "sub"}}, "sub/x.o", false},
		{"domain elsewhere", []pat{{"*.o", "sub"}}, "other/x.o", false},
		{"domain is the path", []pat{{"*", "sub"}}, "sub", true},
		{"domain element matches itself", []pat{{"sub", "sub"}}, "sub/x", false},
		{"glob path", []pat{{"a/*.go", ""}}, "a/b.go", false},
		{"glob path deeper", []pat{{"a/*.go", ""}}, "x/a/b.go", false},
		{"double star", []pat{{"**/gen/*.go", ""}}, "x/y/gen/z.go", false},
		{"double star end", []pat{{"a/**", ""}}, "a/b/c", false},
		{"rooted", []pat{{"/top", ""}}, "top", true},
		{"escaped space", []pat{{`x\ `, ""}}, `x\ `, false},
		{"trailing spaces", []pat{{"x  ", ""}}, "x", false},
		{"star alone", []pat{{"*", ""}, {"!*.go", ""}}, "d/a.go", false},
	} {
		var ps []ignorePattern
		for _, p := range tc.ps {
			var domain []string
			if p.domain != "" {
				domain = strings.Split(p.domain, "/")
			}
			ps = append(ps, parseIgnorePattern(p.line, domain))
		}
		path := strings.Split(tc.path, "/")
		if got, want := dirMatcherDecides(ps, path, tc.isDir), ignoreOracle(ps, path, tc.isDir); got != want {
			t.Errorf("%s: %v, go-git says %v", tc.name, got, want)
		}
	}
}

// TestDirMatcherRandom compares the two on random patterns and paths over
// a small alphabet, so that they meet often.
func TestDirMatcherRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	elems := []string{"a", "b", "ab", "a.go", "b.go", ".go", "vendor", "x.log"}
	shapes := []string{"a", "b", "*.go", "a*", "*b", "vendor", "[ab]", "?.go", "*", "a/*.go", "**/b", "vendor/**", "a/b", "*.log", "[", "ab"}
	for i := range 20000 {
		var ps []ignorePattern
		for range 1 + rng.IntN(5) {
			line := shapes[rng.IntN(len(shapes))]
			if rng.IntN(4) == 0 {
				line = "!" + line
			}
			if rng.IntN(4) == 0 {
				line += "/"
			}
			var domain []string
			for range rng.IntN(3) {
				domain = append(domain, elems[rng.IntN(3)])
			}
			ps = append(ps, parseIgnorePattern(line, domain))
		}
		path := make([]string, 1+rng.IntN(4))
		for j := range path {
			path[j] = elems[rng.IntN(len(elems))]
		}
		isDir := rng.IntN(2) == 0
		if got, want := dirMatcherDecides(ps, path, isDir), ignoreOracle(ps, path, isDir); got != want {
			var lines []string
			for _, p := range ps {
				lines = append(lines, strings.Join(p.domain, "/")+":"+p.name)
			}
			t.Fatalf("case %d: %v dir=%v under %q: %v, go-git says %v", i, path, isDir, lines, got, want)
		}
	}
}
