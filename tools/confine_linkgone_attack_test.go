package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestMaskSeesWritesThroughGoneLinks (redteam s10, 03): a command writes a
// secret into a clean file through a second name (a hard link) and takes
// that name away again, so the tree watch hears only names that are gone
// or that now name another file, never the file written. The next
// command — here another session of the run, a sub-agent that never held
// the secret — must find the file masked all the same, and the decision
// must not walk the tree (a walk restarts the journal the workflow's
// listings of untracked files follow: TestUntrackedFollowChanges),
// unless a file written through still has several names (then it walks,
// as for redteam 04). The file written lives in a folder no event
// touches.
func TestMaskSeesWritesThroughGoneLinks(t *testing.T) {
	write := "cp -p deep/x/a.txt /tmp/ref && printf 'token = " + statSecret + "\\n' > "
	keep := " && touch -r /tmp/ref "
	for _, tc := range []struct {
		name     string
		commands []string
		walks    bool // the last decision may walk (a name is still linked)
		// rescan: the last decision may stat the tree (a name made since
		// is gone: no other way to know which file it named).
		rescan bool
	}{
		{"linked by an earlier command, written through and removed", []string{
			"ln deep/x/a.txt other/l",
			write + "other/l" + keep + "other/l && rm other/l"}, false, false},
		{"linked by an earlier command in a new folder", []string{
			"mkdir made && ln deep/x/a.txt made/l",
			write + "made/l" + keep + "made/l && rm made/l"}, false, false},
		{"linked, written through and removed in one command", []string{
			"ln deep/x/a.txt other/l && " + write + "other/l" + keep + "other/l && rm other/l"}, false, true},
		{"linked in a folder made in the same command, which stays", []string{
			"mkdir -p made/in && ln deep/x/a.txt made/in/l && " + write + "made/in/l" + keep + "made/in/l && rm made/in/l"}, false, true},
		{"linked, written through and another file moved over the link", []string{
			"ln deep/x/a.txt other/l && " + write + "other/l" + keep + "other/l && mv other/fresh other/l"}, false, true},
		{"linked under a name moved over the link, then removed", []string{
			"ln deep/x/a.txt other/t && mv other/t other/l && " + write + "other/l" + keep + "other/l && rm other/l"}, false, true},
		{"an earlier link moved over by another file", []string{
			"ln deep/x/a.txt other/l",
			write + "other/l" + keep + "other/l && mv other/fresh other/l"}, false, false},
		{"one of two links removed", []string{
			"ln deep/x/a.txt other/l && ln deep/x/a.txt other/m",
			write + "other/l" + keep + "other/l && rm other/l"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			for name, body := range map[string]string{
				"main.go": "package main\n", "deep/x/a.txt": statClean, "other/README": "other\n", "other/fresh": "fresh\n"} {
				testkit.WriteFile(t, dir+"/"+name, body)
			}
			masks := NewMaskState()
			t.Cleanup(masks.Close)
			open := func() *Session {
				t.Helper()
				s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo, Masks: masks})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
			run := func(s *Session, command string) string {
				t.Helper()
				r, err := s.runCommand(ctx, command, 0)
				if err != nil || r.code != 0 {
					t.Fatalf("%s: %v %+v", command, err, r)
				}
				return r.stdout
			}
			attacker := open()
			run(attacker, "true") // the first decision walks the tree
			for _, c := range tc.commands {
				run(attacker, c)
			}
			if got, err := os.ReadFile(filepath.Join(dir, "deep", "x", "a.txt")); err != nil || string(got) != statDirty {
				t.Fatalf("the attack did not write the file: %q %v", got, err)
			}
			walks, epoch, rescans := masks.full, masks.journal.epoch, masks.rescans
			other := open()
			if out := run(other, "cat deep/x/a.txt main.go || true"); strings.Contains(out, statSecret) || !strings.Contains(out, "package main") {
				t.Errorf("another session's command read the secret written through a link now gone (or main.go is masked): %q", out)
			}
			if walked := masks.full > walks || masks.journal.epoch != epoch; walked && !tc.walks {
				t.Errorf("the decision walked the tree (%d walks, journal epoch %d → %d)", masks.full-walks, epoch, masks.journal.epoch)
			}
			if masks.rescans > rescans && !tc.rescan {
				t.Errorf("the decision stat-ed the whole tree where the names the last walk found say which file to look at")
			}
		})
	}
}

// TestMaskDecisionAfterCommonChangesLooksOnlyThere (redteam s10, 03, the
// cost): what commands usually do to a tree without hard links — write a
// new file, append to one, save one through a temporary file renamed over
// it, rename one, delete one — neither walks the tree nor stats all of it
// at the next decision; a name made and removed again, or a new folder,
// stats it (rescan) but never walks it.
func TestMaskDecisionAfterCommonChangesLooksOnlyThere(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, body := range map[string]string{"main.go": "package main\n", "pkg/a.go": "package pkg\n", "pkg/b.go": "package pkg\n"} {
		testkit.WriteFile(t, filepath.Join(dir, name), body)
	}
	masks := NewMaskState()
	t.Cleanup(masks.Close)
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo, Masks: masks})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	for _, tc := range []struct {
		command string
		rescan  bool
	}{
		{"true", false}, // the first decision walks
		{"echo new > pkg/new.txt", false},
		{"echo more >> main.go", false},
		{"sed -i s/new/old/ pkg/new.txt", false},
		{"mv pkg/new.txt pkg/renamed.txt", false},
		{"rm pkg/b.go", false},
		{"echo tmp > pkg/tmp.txt && rm pkg/tmp.txt", false},
		{"true", true}, // the name made and removed
		{"mkdir pkg/sub && echo x > pkg/sub/x.txt", false},
		{"true", true}, // the new folder
		{"true", false},
	} {
		walks, rescans := masks.full, masks.rescans
		if r, err := s.runCommand(ctx, tc.command, 0); err != nil || r.code != 0 {
			t.Fatalf("%s: %v %+v", tc.command, err, r)
		}
		if walks > 0 && masks.full != walks {
			t.Errorf("before %q: the decision walked the tree", tc.command)
		}
		if got := masks.rescans > rescans; got != tc.rescan {
			t.Errorf("before %q: the decision stat-ed the whole tree: %v, want %v", tc.command, got, tc.rescan)
		}
	}
}
