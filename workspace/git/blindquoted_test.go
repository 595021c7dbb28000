package git

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestBlindChangedHashesQuotedNames: hash-object --stdin-paths reads a
// line starting with a quote as a C-quoted path, so a blind entry named
// `"a"` must be written quoted, or git hashes the file `a` instead and a
// rewrite of `"a"` to other bytes is no change.
func TestBlindChangedHashesQuotedNames(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	writeFile(t, filepath.Join(dir, `"a"`), "same\n")
	writeFile(t, filepath.Join(dir, "a"), "same\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "quoted names")
	r := openRepo(t, dir)
	wf := pulseStarted(t, r, "quoted")
	writeFile(t, filepath.Join(wf.Worktree, `"a"`), "other\n")
	changed, err := wf.blindChanged(ctx, []string{`"a"`, "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(changed, []string{`"a"`}) {
		t.Errorf("blind entries changed = %q, want [\"a\"] alone", changed)
	}
}
