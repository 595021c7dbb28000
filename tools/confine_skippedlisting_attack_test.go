package tools

import (
	"context"
	"testing"
)

// TestUntrackedListingSurvivesWatchAttacks (issue 35): what a command can
// do to the tree watch whose journal narrows a workflow's listings of
// untracked files never makes a listing miss a file a walk of the whole
// tree finds: more events than the kernel queues (the watch loses track
// and the listing walks), files made later inside a folder the watch
// skips (a new node_modules or .venv that no ignore rule covers), a
// folder moved in from elsewhere, a folder replaced by a file.
func TestUntrackedListingInNewSkippedFolders(t *testing.T) {
	ctx := context.Background()
	repo, wf := workflowRepo(t, "watchattack", map[string]string{"main.go": "package main\n", "pkg/a.go": "package pkg\n"})
	wt := wf.Worktree
	masks := NewMaskState()
	defer masks.Close()
	s, err := NewSession(SessionConfig{Root: wt, GitCommonDir: repo.CommonDir(), Role: "pulsing", Mode: ModeYolo, Masks: masks})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(command string) {
		t.Helper()
		r, err := s.runCommand(ctx, command, 0)
		if err != nil || r.code != 0 {
			t.Fatalf("%s: %v %+v", command, err, r)
		}
	}
	run("true")
	wf.FollowChanges(masks)
	if _, err := wf.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	check := func(step string, want ...string) {
		t.Helper()
		changedAsWalked(t, ctx, repo, wf, step, want...)
	}
	check("start")
	for _, dir := range []string{"node_modules", ".venv", "x/__pycache__"} {
		run("mkdir -p " + dir + "/a && echo one > " + dir + "/a/first.txt")
		check("a new "+dir, dir+"/a/first.txt")
		run("echo two > " + dir + "/a/second.txt && mkdir " + dir + "/b && echo three > " + dir + "/b/third.txt")
		check("later inside the new "+dir, dir+"/a/second.txt", dir+"/b/third.txt")
	}
}
