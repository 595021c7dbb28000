package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// redteamOpen skips an attack that still succeeds on main (a hole the
// report names) unless AUTARCH_REDTEAM_OPEN is set: CI stays green, and
// the attack runs on demand to show the hole and, once fixed, that it is
// closed.
func redteamOpen(t *testing.T, hole string) {
	t.Helper()
	if os.Getenv("AUTARCH_REDTEAM_OPEN") == "" {
		t.Skip("redteam s11 " + hole + ": open, see report (/work/briefs/s11/redteam/); AUTARCH_REDTEAM_OPEN=1 runs it")
	}
}

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
	redteamOpen(t, "01")
	ctx := context.Background()
	cases := []struct {
		name, attributes, path, content, edit string
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
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			r := openRepo(t, dir)
			wf := pulseStarted(t, r, "attr")
			at := func(p string) string { return filepath.Join(wf.Worktree, filepath.FromSlash(p)) }
			// The agent's commands write the attributes and the file.
			writeFile(t, at(".gitattributes"), tc.attributes)
			writeFile(t, at(tc.path), tc.content)
			cp, err := wf.CompletePulse(ctx, "p1", "feat: add")
			if err != nil {
				t.Fatal(err)
			}
			if got := gitT(t, dir, "cat-file", "blob", cp.Commit+":"+tc.path); got != strings.TrimRight(tc.content, "\n") {
				t.Errorf("the gates tested %q in the work tree; the checkpoint committed %q", tc.content, got)
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
