package git

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckpointCommitsWhatTheGatesTested (redteam s11, 01; gitT's
// output loses its final newlines, so the contents compare without them): an agent's
// .gitattributes selects conversions that need no driver in any
// configuration (ident, text/eol, working-tree-encoding). Autarch's own
// git applies them when it stages the checkpoint, so the commit holds
// other bytes than the work tree the gates tested; and once the
// attributes are committed, an edit git's clean conversion undoes is no
// change at all: not in the changed paths, not in status, not committed.
//
// The ident case is a gate bypass: the work tree's
//
//	/*$Id: */ return a + b /*$*/
//
// is Go code that the gates compile and test; git commits "/*$Id$*/",
// an empty comment, and the diff the user reviews never shows the line.
func TestCheckpointCommitsWhatTheGatesTested(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name, attributes, path, content, edit string
		// user is what the user committed in the base before the
		// workflow began (path: content); committed, when set, is what
		// the checkpoint must hold (the user's own conversions).
		user               map[string]string
		committed, ignored string
		// split makes the worktree's index one the tracked pass cannot
		// read: git passes over every file.
		split bool
	}{
		{
			name:       "ident",
			attributes: "*.go ident\n",
			path:       "lib/add.go",
			content:    "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id: */ return a + b /*$*/\n\treturn a - b\n}\n",
			edit:       "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id: */ return b + a /*$*/\n\treturn a - b\n}\n",
		},
		{
			name:       "eol",
			attributes: "*.txt text eol=lf\n",
			path:       "testdata/want.txt",
			content:    "line one\r\nline two\r\n",
			edit:       "line one\r\nline two\n",
		},
		{
			name:       "working-tree-encoding",
			attributes: "*.csv working-tree-encoding=UTF-16LE-BOM\n",
			path:       "data.csv",
			content:    "\xff\xfea\x00,\x00b\x00\n\x00",
			edit:       "",
		},
		{
			// Pulse 1 commits what its conversion leaves alone; pulse 2's
			// edit the conversion takes back must still be a change.
			name:       "ident, an edit hidden in pulse 2",
			attributes: "*.go ident\n",
			path:       "lib/add.go",
			content:    "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id$*/\n\treturn a - b\n}\n",
			edit:       "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id: */ return a + b /*$*/\n\treturn a - b\n}\n",
		},
		{
			name:       "ident, an edit hidden in pulse 2, a split index",
			attributes: "*.go ident\n",
			path:       "lib/add.go",
			content:    "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id$*/\n\treturn a - b\n}\n",
			edit:       "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id: */ return a + b /*$*/\n\treturn a - b\n}\n",
			split:      true,
		},
		{
			// An ignored .gitattributes is not staged, but git reads it.
			name:       "ignored attributes",
			attributes: "*.go ident\n",
			ignored:    "*.log\n.gitattributes\n",
			path:       "lib/add.go",
			content:    "package lib\n\nfunc Add(a, b int) int {\n\t/*$Id: */ return a + b /*$*/\n\treturn a - b\n}\n",
		},
		{
			// The user's own attributes, committed in the base, keep
			// converting as before.
			name:      "the user's attributes",
			user:      map[string]string{".gitattributes": "*.txt text eol=lf\n"},
			path:      "testdata/want.txt",
			content:   "line one\r\nline two\r\n",
			committed: "line one\nline two\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			if tc.user != nil {
				for p, c := range tc.user {
					writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), c)
					gitT(t, dir, "add", "--", p)
				}
				gitT(t, dir, "commit", "-q", "-m", "the user's attributes")
			}
			r := openRepo(t, dir)
			wf := pulseStarted(t, r, "attr")
			at := func(p string) string { return filepath.Join(wf.Worktree, filepath.FromSlash(p)) }
			// The agent's commands write the attributes and the file.
			if tc.split {
				gitT(t, wf.Worktree, "update-index", "--split-index")
			}
			if tc.attributes != "" {
				if tc.ignored != "" {
					writeFile(t, at(".gitignore"), tc.ignored)
				}
				writeFile(t, at(".gitattributes"), tc.attributes)
			}
			writeFile(t, at(tc.path), tc.content)
			want := tc.content
			if tc.committed != "" {
				want = tc.committed
			}
			cp, err := wf.CompletePulse(ctx, "p1", "feat: add")
			if err != nil {
				t.Fatal(err)
			}
			if got := gitT(t, dir, "cat-file", "blob", cp.Commit+":"+tc.path); got != strings.TrimRight(want, "\n") {
				t.Errorf("the work tree held %q; the checkpoint committed %q, not %q", tc.content, got, want)
			}
			if tc.edit == "" {
				return
			}
			// Pulse 2: the attributes are committed; an edit git's clean
			// conversion takes back.
			if _, err := wf.StartPulse(ctx, "p2"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, at(tc.path), tc.edit)
			changed, err := wf.ChangedPaths(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(changed, tc.path) {
				t.Errorf("%s rewritten: changed paths %q do not name it", tc.path, changed)
			}
			cp2, err := wf.CompletePulse(ctx, "p2", "fix: add")
			if err != nil {
				t.Fatal(err)
			}
			if got := gitT(t, dir, "cat-file", "blob", cp2.Commit+":"+tc.path); got != strings.TrimRight(tc.edit, "\n") {
				t.Errorf("pulse 2: the work tree held %q; the checkpoint committed %q", tc.edit, got)
			}
		})
	}
}
