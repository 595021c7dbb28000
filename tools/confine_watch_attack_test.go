package tools

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestUntrackedListingSurvivesWatchAttacks (issue 35): what a command can
// do to the tree watch whose journal narrows a workflow's listings of
// untracked files never makes a listing miss a file a walk of the whole
// tree finds: more events than the kernel queues (the watch loses track
// and the listing walks), a folder moved in from elsewhere, a folder
// replaced by a file. (Files made later inside a new folder the watch
// skips: /work/briefs/s9/redteam/05.)
func TestUntrackedListingSurvivesWatchAttacks(t *testing.T) {
	ctx := context.Background()
	repo, wf := workflowRepo(t, "watchattack", map[string]string{"main.go": "package main\n", "pkg/a.go": "package pkg\n"})
	wt := wf.Worktree
	run := followedTree(t, repo, wf)
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	// check: the narrowed listing is the walk's, which holds want.
	check := func(step string, want ...string) {
		t.Helper()
		narrowed, err1 := wf.ChangedPaths(ctx)
		walked, err2 := repo.ChangedPaths(ctx, wt, wf.Branch)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		missing := slices.DeleteFunc(slices.Clone(want), func(w string) bool { return slices.Contains(walked, w) })
		if !slices.Equal(narrowed, walked) || len(missing) > 0 {
			t.Errorf("%s: changed paths %q, a walk of the tree finds %q (without %q)", step, narrowed, walked, missing)
		}
	}
	check("start")
	// 20,000 creations and closes overflow the kernel's queue (16,384).
	run("for i in $(seq 9000); do echo $i > flood.txt; done; rm flood.txt; echo kept > after-flood.txt") // few paths, past the queue
	check("the queue overflowed", "after-flood.txt")

	run("mkdir -p /tmp/outside/in && echo out > /tmp/outside/in/f.txt && mv /tmp/outside moved-in")
	check("a folder moved in from outside the tree", "moved-in/in/f.txt")
	run("rm -r moved-in && echo file > moved-in")
	check("a folder replaced by a file", "moved-in")
}
