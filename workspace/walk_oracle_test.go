package workspace

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// TestWalkHiddenMatchesGoGit: on a real tree with nested pattern files,
// a walk visits in lexical order exactly the entries go-git's matcher
// (over every ancestor's patterns, on the whole path) does not ignore
// below unignored folders, and reports the others to hidden once.
func TestWalkHiddenMatchesGoGit(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":            "*.log\nbuild/\n!keep.log\n/top.txt\ngen/**/*.pb.go\n*.vv\n!vendor\n",
		"a/.gitignore":          "*.tmp\n!important.tmp\nsub/x*\n",
		"a/.autarchignore":      "secret*\n",
		"a/x.go":                "",
		"a/y.tmp":               "",
		"a/important.tmp":       "",
		"a/secret.txt":          "",
		"a/sub/xa.go":           "",
		"a/sub/ya.go":           "",
		"a/sub/deep/xb.go":      "",
		"a/sub/deep/.gitignore": "!*.log\n",
		"a/sub/deep/z.log":      "",
		"b/build/out.o":         "",
		"b/build.txt":           "",
		"b/keep.log":            "",
		"b/drop.log":            "",
		"top.txt":               "",
		"c/top.txt":             "",
		"gen/p/q.pb.go":         "",
		"gen/p/q.go":            "",
		"vendor/m/v.go":         "",
		"vendor/m/v.vv":         "",
		"x.vv":                  "",
		"d/build":               "",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// the reference: go-git over each path, patterns of every ancestor
	var wantSeen, wantHidden []string
	patterns := func(rel string) []gitignore.Pattern {
		var ps []gitignore.Pattern
		parts := strings.Split(rel, "/")
		for i := 0; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/")
			var domain []string
			if d != "" {
				domain = strings.Split(d, "/")
			}
			for _, f := range ignoreFiles {
				if data, err := os.ReadFile(filepath.Join(dir, d, f)); err == nil {
					for _, line := range strings.Split(string(data), "\n") {
						if strings.TrimSpace(line) != "" {
							ps = append(ps, gitignore.ParsePattern(line, domain))
						}
					}
				}
			}
		}
		return ps
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if gitignore.NewMatcher(patterns(rel)).Match(strings.Split(rel, "/"), d.IsDir()) {
			wantHidden = append(wantHidden, rel)
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		wantSeen = append(wantSeen, rel)
		return nil
	})
	var seen, hidden []string
	err := NewIgnore(openRoot(t, dir)).WalkHidden(context.Background(), ".", func(rel string, d fs.DirEntry) error {
		seen = append(seen, rel)
		return nil
	}, func(rel string, d fs.DirEntry) { hidden = append(hidden, rel) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, wantSeen) {
		t.Errorf("seen %q\nwant %q", seen, wantSeen)
	}
	slices.Sort(hidden)
	slices.Sort(wantHidden)
	if !slices.Equal(hidden, wantHidden) {
		t.Errorf("hidden %q\nwant %q", hidden, wantHidden)
	}
}
