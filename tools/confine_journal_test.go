package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/git"
)

// TestUntrackedFollowChanges (issue 35): a workflow whose listings of
// untracked files follow the tree watch of its masks (FollowChanges)
// finds, at the gates (ChangedPaths) and in the checkpoint, exactly what
// a walk of the whole tree finds — from the preflight's status on,
// whatever wrote a file between two listings and however: a command,
// inside a new folder, renamed, through a hard link inside the tree, a
// process outside the sandbox — and walks the tree again where the watch
// cannot say (an ignore rule changed, the index changed).
func TestUntrackedFollowChanges(t *testing.T) {
	ctx := context.Background()
	repo, wf := workflowRepo(t, "journal", map[string]string{"main.go": "package main\n", "pkg/a.go": "package pkg\n", "pkg/deep/b.go": "package deep\n", ".gitignore": "*.log\n", "keep.log": "ignored\n"})
	wt := wf.Worktree
	writeFiles(t, wt, map[string]string{"keep.log": "ignored\n", "hidden.ign": "excluded\n"})
	writeFiles(t, repo.CommonDir(), map[string]string{"info/exclude": "*.ign\n"})
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
	run("true") // the first mask decision walks the tree and starts the watch
	wf.FollowChanges(masks)
	// Preflight's status begins the state, which the workflow opened
	// again for the pulses shares.
	if _, err := wf.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if wf, err = repo.OpenWorkflow(ctx, "journal", "main"); err != nil {
		t.Fatal(err)
	}
	wf.FollowChanges(masks)

	// check compares the workflow's changed paths with those a walk of
	// the whole tree finds; narrowed says whether the listing may (and
	// must) have used the journal.
	check := func(step string, narrowed bool, want ...string) {
		t.Helper()
		before := wf.UntrackedWalks()
		changedAsWalked(t, ctx, repo, wf, step, want...)
		if walked := wf.UntrackedWalks() > before; walked == narrowed {
			t.Errorf("%s: the listing walked the tree: %v, want %v", step, walked, !narrowed)
		}
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	check("the first listing, after the status", true)
	check("nothing changed", true)

	run("mkdir -p fresh/inner && echo one > fresh/inner/new.txt")
	check("a file in a new folder", true, "fresh/inner/new.txt")

	run("echo two > pkg/deep/tmp.txt")
	check("a new file", true, "pkg/deep/tmp.txt")
	run("mv pkg/deep/tmp.txt pkg/renamed.txt")
	check("renamed", true, "pkg/renamed.txt")

	// A hard link made, written through and removed between two listings:
	// the file it linked to changed, under no name the watch reported.
	run("ln pkg/a.go pkg/link.txt && echo 'var X = 1' >> pkg/link.txt && rm pkg/link.txt")
	check("written through a hard link", true, "pkg/a.go")
	run("ln main.go pkg/deep/kept-link.txt")
	check("a hard link kept", true, "pkg/deep/kept-link.txt")

	writeFiles(t, wt, map[string]string{"pkg/deep/host.txt": "from outside\n"})
	check("a file written outside the sandbox", true, "pkg/deep/host.txt")

	// Ignore rules changed: an ignored file becomes a change without any
	// event naming it.
	writeFiles(t, wt, map[string]string{".gitignore": "*.tmp\n"})
	check("a .gitignore changed", false, "keep.log")
	writeFiles(t, wt, map[string]string{"late.tmp": "x\n"})
	check("ignored again", true)
	writeFiles(t, repo.CommonDir(), map[string]string{"info/exclude": "fresh/\n"})
	check("info/exclude changed", false, "hidden.ign")

	// A file taken out of the index (by the user's git): untracked
	// without any event in the tree.
	gitCmd(t, wt, "rm", "-q", "--cached", "pkg/deep/b.go")
	check("the index changed", false, "pkg/deep/b.go")

	// The checkpoint holds all of it, and the next pulse's listing builds
	// on it.
	run("echo three > pkg/deep/last.txt")
	cp, err := wf.CompletePulse(ctx, "p1", "feat: journal")
	if err != nil {
		t.Fatal(err)
	}
	tree := strings.Fields(gitCmd(t, wt, "ls-tree", "-r", "--name-only", cp.Commit))
	for _, f := range []string{"pkg/renamed.txt", "pkg/deep/kept-link.txt", "pkg/deep/host.txt", "pkg/deep/last.txt", "keep.log"} {
		if !slices.Contains(tree, f) {
			t.Errorf("the checkpoint lacks %s:\n%s", f, tree)
		}
	}
	if got := gitCmd(t, wt, "show", cp.Commit+":pkg/a.go"); !strings.Contains(got, "var X = 1") {
		t.Errorf("the checkpoint lacks the write through the hard link: %q", got)
	}
	if _, err := wf.StartPulse(ctx, "p2"); err != nil {
		t.Fatal(err)
	}
	run("echo four > pkg/deep/next.txt")
	check("the next pulse", true, "pkg/deep/next.txt")
}

// workflowRepo commits files in a new repository on main and creates the
// workflow name's worktree.
func workflowRepo(t *testing.T, name string, files map[string]string) (*git.Repo, *git.Workflow) {
	t.Helper()
	ctx := context.Background()
	top := t.TempDir()
	writeFiles(t, top, files)
	gitCmd(t, top, "init", "-q", "-b", "main")
	gitCmd(t, top, "add", ".")
	gitCmd(t, top, "commit", "-qm", "init")
	repo, err := git.Open(ctx, top, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := repo.CreateWorkflow(ctx, name, "main")
	if err != nil {
		t.Fatal(err)
	}
	return repo, wf
}

// changedAsWalked checks that the workflow's changed paths are those a walk
// of its whole tree finds, and that they hold want.
func changedAsWalked(t *testing.T, ctx context.Context, repo *git.Repo, wf *git.Workflow, step string, want ...string) {
	t.Helper()
	got, err := wf.ChangedPaths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	full, err := repo.ChangedPaths(ctx, wf.Worktree, wf.Branch)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, full) {
		t.Errorf("%s: changed paths %q, a walk of the tree finds %q", step, got, full)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: %s is not among the changed paths %q", step, w, got)
		}
	}
}
