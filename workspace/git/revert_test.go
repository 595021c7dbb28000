package git

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// threePulses makes a workflow with three completed pulses (a.txt, then
// b.txt, then an edit of a.txt) and returns their checkpoints.
func threePulses(t testing.TB) (dir string, wf *Workflow, cps []Checkpoint) {
	t.Helper()
	ctx := context.Background()
	dir, _ = userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "undo", "main")
	if err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct{ file, content string }{{"a.txt", "one\n"}, {"b.txt", "two\n"}, {"a.txt", "one\nthree\n"}} {
		id := []string{"p1", "p2", "p3"}[i]
		if _, err := wf.StartPulse(ctx, id); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(wf.Worktree, step.file), step.content)
		cp, err := wf.CompletePulse(ctx, id, "feat: pulse "+id)
		if err != nil {
			t.Fatal(err)
		}
		cps = append(cps, cp)
	}
	return dir, wf, cps
}

func TestRevertCommitsIsIdempotentAndLeavesTheUserAlone(t *testing.T) {
	ctx := context.Background()
	dir, wf, cps := threePulses(t)
	before := snapshot(t, dir)
	since, _ := wf.Head(ctx)
	var calls []int
	got, err := wf.Revert(ctx, []string{cps[2].Commit, cps[1].Commit}, nil, RevertOptions{Since: since, AfterCommit: func(n int) { calls = append(calls, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Reverts != cps[2].Commit || got[1].Reverts != cps[1].Commit || len(calls) != 2 {
		t.Fatalf("reverts = %+v (hook calls %v)", got, calls)
	}
	head, _ := wf.Head(ctx)
	if head != got[1].Commit || gitT(t, dir, "rev-parse", head+"^^") != since {
		t.Fatalf("the branch is not the old head plus two revert commits: %s", gitT(t, dir, "log", "--oneline", "main..autarch/undo"))
	}
	if a, b := gitT(t, dir, "rev-parse", head+"^{tree}"), gitT(t, dir, "rev-parse", cps[0].Commit+"^{tree}"); a != b {
		t.Fatalf("tree after the reverts %s, want pulse 1's %s", a, b)
	}
	if msg := gitT(t, dir, "log", "-1", "--format=%B", head); !strings.Contains(msg, `Revert "feat: pulse p2"`) || !strings.Contains(msg, RevertTrailer+": "+cps[1].Commit) {
		t.Errorf("revert message = %q", msg)
	}
	if got := readFile(t, filepath.Join(wf.Worktree, "a.txt")); got != "one\n" {
		t.Errorf("the worktree is not at rest on the new head: a.txt = %q", got)
	}
	// Asked again (a process died after the git side): nothing new.
	again, err := wf.Revert(ctx, []string{cps[2].Commit, cps[1].Commit}, nil, RevertOptions{Since: since})
	if err != nil || len(again) != 2 || again[1].Commit != head {
		t.Fatalf("second call = %+v, %v", again, err)
	}
	if h, _ := wf.Head(ctx); h != head {
		t.Fatalf("the second call moved the branch to %s", h)
	}
	sameSnapshot(t, "revert", before, snapshot(t, dir))
}

func TestRevertCommitsFinishesHalfDoneRevert(t *testing.T) {
	ctx := context.Background()
	dir, wf, cps := threePulses(t)
	since, _ := wf.Head(ctx)
	stop := errors.New("died")
	func() {
		defer func() {
			if r := recover(); r != stop {
				t.Fatalf("recovered %v", r)
			}
		}()
		wf.Revert(ctx, []string{cps[2].Commit, cps[1].Commit}, nil, RevertOptions{Since: since, AfterCommit: func(int) { panic(stop) }})
	}()
	if n := gitT(t, dir, "rev-list", "--count", since+"..autarch/undo"); n != "0" {
		t.Fatalf("%s revert commits on the branch after the revert died half way, want 0 (all or none)", n)
	}
	got, err := wf.Revert(ctx, []string{cps[2].Commit, cps[1].Commit}, nil, RevertOptions{Since: since})
	if err != nil || len(got) != 2 {
		t.Fatalf("finishing: %+v, %v", got, err)
	}
	if n := gitT(t, dir, "rev-list", "--count", since+"..autarch/undo"); n != "2" {
		t.Fatalf("%s revert commits, want 2", n)
	}
}

func TestRevertConflict(t *testing.T) {
	ctx := context.Background()
	_, wf, cps := threePulses(t)
	// Pulse 1 made a.txt, pulse 3 edited it: undoing 1 alone conflicts.
	_, err := wf.Revert(ctx, []string{cps[0].Commit}, nil, RevertOptions{})
	var c *RevertConflict
	if !errors.As(err, &c) || len(c.Files) != 1 || c.Files[0] != "a.txt" {
		t.Fatalf("err = %v, want a conflict in a.txt", err)
	}
}
