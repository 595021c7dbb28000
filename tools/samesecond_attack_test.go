package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestPulseSameSecondRewrite (redteam s10, hole 02): git compares the
// change time it recorded for a file to the second only (it is built
// without USE_NSEC), and takes an entry for racily clean only by its
// modification time, which the agent sets. A file rewritten with its size
// kept and its modification time set back, in the second in which git
// last recorded it — the previous checkpoint staged it, and the next
// pulse's first command comes at once — is then taken for unchanged: the
// gates' changed paths leave it out and the checkpoint does not hold it.
// The worktree runs the rest of the workflow (tests, gates) on content no
// commit holds and no gate looked at.
func TestPulseSameSecondRewrite(t *testing.T) {
	missed := 0
	const tries = 3
	for try := range tries {
		// Start at the beginning of a second: the checkpoint and the
		// command then share it (about 0.3 s apart here).
		if err := testkit.Poll(3*time.Second, time.Millisecond, func() error {
			if time.Now().Nanosecond() > 50e6 {
				return errors.New("not at the start of a second")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if sameSecondRewrite(t, try) {
			missed++
		}
	}
	if missed > 0 {
		t.Errorf("%d of %d rewrites in the checkpoint's second were missed by the gates and the checkpoint", missed, tries)
	}
}

// sameSecondRewrite runs pulse 1 (the agent changes src/app.cfg and sets
// its modification time back; the checkpoint stages it) and, at once,
// pulse 2's first command (it rewrites the file, same size, modification
// time kept). true: the change was missed.
func sameSecondRewrite(t *testing.T, try int) bool {
	ctx := context.Background()
	repo, wf := workflowRepo(t, "samesecond", map[string]string{"main.go": "package main\n", "src/app.cfg": statClean})
	wt := wf.Worktree
	s, masks := pulseSession(t, repo, wt)
	run := func(command string) {
		t.Helper()
		if r, err := s.runCommand(ctx, command, 0); err != nil || r.code != 0 {
			t.Fatalf("%s: %v %+v", command, err, r)
		}
	}
	run("true")
	wf.FollowChanges(masks)
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	run("printf 'token = yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\\n' > src/app.cfg && touch -d @1577836800 src/app.cfg")
	if _, err := wf.CompletePulse(ctx, "p1", "feat: one"); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p2"); err != nil {
		t.Fatal(err)
	}
	run("printf 'token = " + statSecret + "\\n' > src/app.cfg && touch -d @1577836800 src/app.cfg")
	if got, err := os.ReadFile(filepath.Join(wt, "src", "app.cfg")); err != nil || string(got) != statDirty {
		t.Fatalf("the attack did not write the file: %q %v", got, err)
	}
	missed := false
	changed, err := wf.ChangedPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(changed, "src/app.cfg") {
		missed = true
		t.Logf("try %d: the gates' changed paths %q leave out src/app.cfg", try, changed)
	}
	cp, err := wf.CompletePulse(ctx, "p2", "feat: two")
	if err != nil {
		t.Fatal(err)
	}
	if got := gitCmd(t, wt, "show", cp.Commit+":src/app.cfg"); !strings.Contains(got, statSecret) {
		missed = true
		t.Logf("try %d: the checkpoint holds %q, the worktree %q", try, got, statDirty)
	}
	return missed
}
