package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace/git/gitattack"
)

// TestBlindEntriesRunNoUserFilter (redteam s11, point 1): the user's
// global configuration defines the LFS filter (as `git lfs install`
// writes it), and the agent's .gitattributes selects it for a file it
// then rewrites in the second git last recorded it, so that git would
// trust its stat data: the entry takes the blind path (hash-object to
// count it changed, add --renormalize to stage it). No git process of
// Autarch's runs the user's filter on the agent's content, on that path
// or any other; and the rewrite is committed (the blind path ran).
func TestBlindEntriesRunNoUserFilter(t *testing.T) {
	ctx := context.Background()
	marker := filepath.Join(t.TempDir(), "filter-ran")
	evil := gitattack.Program(t, marker)
	home := t.TempDir()
	global := filepath.Join(home, ".gitconfig")
	writeFile(t, global, "[filter \"lfs\"]\n\tclean = "+evil+" %f\n\tsmudge = "+evil+" %f\n\trequired = true\n")
	dir, _ := userRepo(t)
	// The user's own configuration, where git and Open find it.
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	r := openRepo(t, dir)
	wf := pulseStarted(t, r, "blindlfs")
	at := func(p string) string { return filepath.Join(wf.Worktree, filepath.FromSlash(p)) }
	writeFile(t, at(".gitattributes"), "*.txt filter=lfs diff=lfs merge=lfs -text\n")
	past := time.Date(2020, 1, 2, 3, 4, 5, 600, time.UTC)
	var st syscall.Stat_t
	blind := false
	var want string
	cur := "p1"
	for i := 0; i < 12 && !blind; i++ {
		// Command k: a change git records, the mtime in the past.
		writeFile(t, at("old.txt"), strings.Repeat(string(rune('a'+i)), 13)+"\n")
		if err := os.Chtimes(at("old.txt"), past, past); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Lstat(at("old.txt"), &st); err != nil {
			t.Fatal(err)
		}
		recorded := st.Ctim.Sec
		if _, err := wf.CompletePulse(ctx, cur, "chore: step"); err != nil {
			t.Fatal(err)
		}
		cur = fmt.Sprintf("b%d", i)
		if _, err := wf.StartPulse(ctx, cur); err != nil {
			t.Fatal(err)
		}
		// Command k+1: a same-size rewrite in place, the mtime put back.
		want = strings.Repeat("Z", 13) + "\n"
		f, err := os.OpenFile(at("old.txt"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte(want), 0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(at("old.txt"), past, past); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Lstat(at("old.txt"), &st); err != nil {
			t.Fatal(err)
		}
		if blind = st.Ctim.Sec == recorded; !blind { // the second turned: again
			if _, err := wf.CompletePulse(ctx, cur, "chore: retry"); err != nil {
				t.Fatal(err)
			}
			cur = fmt.Sprintf("c%d", i)
			if _, err := wf.StartPulse(ctx, cur); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !blind {
		t.Skip("no same-second rewrite in 12 tries (a loaded machine): the blind path was not reached")
	}
	changed, err := wf.ChangedPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.Status(ctx); err != nil {
		t.Fatal(err)
	}
	cp, err := wf.CompletePulse(ctx, cur, "fix: same second")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("Autarch's git ran the user's LFS filter on the agent's file")
	}
	if !strings.Contains(strings.Join(changed, " "), "old.txt") {
		t.Errorf("the same-second rewrite is not among the changed paths %q", changed)
	}
	if got := gitT(t, dir, "cat-file", "blob", cp.Commit+":old.txt"); got != strings.TrimRight(want, "\n") {
		t.Errorf("the same-second rewrite was not committed: %q", got)
	}
}
