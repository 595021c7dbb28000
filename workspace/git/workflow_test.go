package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkflowLeavesUserTreeUntouched runs a whole workflow — create, two
// pulses, a recovery checkpoint, remove — and checks after every step that
// the user's HEAD, index and working tree (with a staged change, an
// unstaged change, an untracked and an ignored file) are byte-identical,
// and that none of the user's hooks ran.
func TestWorkflowLeavesUserTreeUntouched(t *testing.T) {
	ctx := context.Background()
	dir, hookDir := userRepo(t)
	before := snapshot(t, dir)
	check := func(when string) {
		t.Helper()
		sameSnapshot(t, when, before, snapshot(t, dir))
		if ran := hooksRan(t, hookDir); ran != "" {
			t.Fatalf("%s: user hooks ran: %s", when, ran)
		}
	}
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "feature-x", "")
	if err != nil {
		t.Fatal(err)
	}
	check("create workflow")
	mainHead := gitT(t, dir, "rev-parse", "main")
	if wf.Base != "main" || wf.BaseCommit != mainHead || wf.Branch != "autarch/feature-x" {
		t.Fatalf("workflow = %+v, want base main at %s on autarch/feature-x", wf, mainHead)
	}
	wantPath := filepath.Join(dir, ".git", "autarch", "worktrees", "feature-x")
	if wf.Worktree != wantPath {
		t.Fatalf("worktree at %s, want %s", wf.Worktree, wantPath)
	}
	if got := readFile(t, filepath.Join(wf.Worktree, "main.go")); strings.Contains(got, "unstaged") {
		t.Fatalf("worktree has the user's uncommitted change: %q", got)
	}
	if _, err := os.Stat(filepath.Join(wf.Worktree, "notes.txt")); err == nil {
		t.Fatal("worktree has the user's untracked file")
	}

	// Preflight: untracked artifacts only.
	writeFile(t, filepath.Join(wf.Worktree, "node_modules", "dep", "index.js"), "module.exports = 1\n")
	writeFile(t, filepath.Join(wf.Worktree, "build.out"), "artifact\n")
	st, err := wf.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tc := st.TrackedChanges(); len(tc) != 0 {
		t.Fatalf("tracked changes after preflight: %v", tc)
	}
	arts, err := wf.RecordArtifacts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(arts, []string{"build.out", "node_modules/"}) {
		t.Fatalf("artifacts = %v", arts)
	}
	check("preflight")

	// Pulse 1: modify, add, delete.
	branch, err := wf.StartPulse(ctx, "pulse-1")
	if err != nil {
		t.Fatal(err)
	}
	if branch != "autarch-pulse/feature-x/pulse-1" {
		t.Fatalf("pulse branch %s", branch)
	}
	if got := gitT(t, wf.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/"+branch {
		t.Fatalf("worktree HEAD %s", got)
	}
	writeFile(t, filepath.Join(wf.Worktree, "lib", "lib.go"), "package lib\n\n// One is one.\nconst One = 1\n\n// Two is two.\nconst Two = 2\n\n// Three is three.\nconst Three = 3\n")
	writeFile(t, filepath.Join(wf.Worktree, "lib", "greet.go"), "package lib\n\nfunc Greet() string { return \"hello\" }\n")
	if err := os.Remove(filepath.Join(wf.Worktree, "old.txt")); err != nil {
		t.Fatal(err)
	}
	cp1, err := wf.CompletePulse(ctx, "pulse-1", "feat(lib): add Three and Greet")
	if err != nil {
		t.Fatal(err)
	}
	check("pulse 1")
	if cp1.Empty || cp1.IsRecoveryCheckpoint || cp1.Parent != mainHead {
		t.Fatalf("checkpoint 1 = %+v", cp1)
	}
	if cp1.Stats != (Stats{Files: 3, Additions: 6, Deletions: 1}) {
		t.Fatalf("stats 1 = %+v", cp1.Stats)
	}
	if got := gitT(t, dir, "rev-parse", "autarch/feature-x"); got != cp1.Commit {
		t.Fatalf("workflow branch at %s, want %s", got, cp1.Commit)
	}
	if got := gitT(t, dir, "show", "-s", "--format=%an <%ae>|%cn <%ce>|%B", cp1.Commit); got != "Autarch <autarch@localhost>|Autarch <autarch@localhost>|feat(lib): add Three and Greet" {
		t.Fatalf("commit 1 = %q", got)
	}
	if files := gitT(t, dir, "ls-tree", "-r", "--name-only", cp1.Commit); strings.Contains(files, "node_modules") || strings.Contains(files, "build.out") || strings.Contains(files, "old.txt") || !strings.Contains(files, "lib/greet.go") {
		t.Fatalf("commit 1 tree:\n%s", files)
	}
	if got := gitT(t, wf.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/autarch/feature-x" {
		t.Fatalf("worktree at rest on %s", got)
	}
	if st, err := wf.Status(ctx); err != nil || !slices.Equal(st.Untracked(), []string{"build.out", "node_modules/"}) || len(st.TrackedChanges()) > 0 {
		t.Fatalf("status after pulse 1 = %+v, %v (artifacts must survive, nothing else)", st, err)
	}

	// Pulse 2: empty.
	if _, err := wf.StartPulse(ctx, "pulse-2"); err != nil {
		t.Fatal(err)
	}
	cp2, err := wf.CompletePulse(ctx, "pulse-2", "chore: nothing to change")
	if err != nil {
		t.Fatal(err)
	}
	check("pulse 2")
	if !cp2.Empty || cp2.Parent != cp1.Commit || cp2.Stats != (Stats{}) {
		t.Fatalf("checkpoint 2 = %+v", cp2)
	}
	if gitT(t, dir, "rev-parse", cp2.Commit+"^{tree}") != gitT(t, dir, "rev-parse", cp1.Commit+"^{tree}") {
		t.Fatal("empty pulse changed the tree")
	}

	// Pulse 3: stopped with uncommitted work.
	if _, err := wf.StartPulse(ctx, "pulse-3"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "main.go"), "package main\n\nfunc main() {\n\tprintln(\"work in progress\")\n}\n")
	writeFile(t, filepath.Join(wf.Worktree, "wip.go"), "package main\n")
	rc, err := wf.RecoveryCheckpoint(ctx, "pulse-3", "stopped by the user")
	if err != nil {
		t.Fatal(err)
	}
	check("recovery checkpoint")
	if !rc.IsRecoveryCheckpoint || rc.Parent != cp2.Commit || rc.Stats.Files != 2 || rc.PulseBranch != "autarch-pulse/feature-x/pulse-3" {
		t.Fatalf("recovery checkpoint = %+v", rc)
	}
	if got := gitT(t, dir, "rev-parse", rc.PulseBranch); got != rc.Commit {
		t.Fatalf("kept pulse branch at %s, want %s", got, rc.Commit)
	}
	if got := gitT(t, dir, "rev-parse", "autarch/feature-x"); got != cp2.Commit {
		t.Fatalf("recovery moved the workflow branch to %s", got)
	}
	c, err := r.Commit(ctx, rc.PulseBranch)
	if err != nil || !c.IsRecoveryCheckpoint || !strings.Contains(c.Message, "stopped by the user") {
		t.Fatalf("recovery commit = %+v, %v", c, err)
	}
	if got := readFile(t, filepath.Join(wf.Worktree, "main.go")); strings.Contains(got, "work in progress") {
		t.Fatal("worktree not reset to the workflow head after the recovery checkpoint")
	}
	if _, err := os.Stat(filepath.Join(wf.Worktree, "wip.go")); err == nil {
		t.Fatal("wip.go left in the worktree after the recovery checkpoint")
	}

	commits, err := wf.Commits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var summaries []string
	for _, c := range commits {
		summaries = append(summaries, c.Summary)
	}
	if !slices.Equal(summaries, []string{"feat(lib): add Three and Greet", "chore: nothing to change"}) {
		t.Fatalf("workflow commits = %q", summaries)
	}
	got := branches(t, dir)
	want := []string{"autarch-pulse/feature-x/pulse-3", "autarch/feature-x", "main"}
	if !slices.Equal(got, want) {
		t.Fatalf("branches = %v, want %v", got, want)
	}

	if err := r.RemoveWorkflow(ctx, "feature-x", RemoveOptions{DeleteBranch: true, DeletePulseBranches: true}); err != nil {
		t.Fatal(err)
	}
	check("remove workflow")
	if _, err := os.Stat(wf.Worktree); !os.IsNotExist(err) {
		t.Fatalf("worktree still exists: %v", err)
	}
	if got := branches(t, dir); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("branches after remove = %v", got)
	}
	list, err := r.Worktrees(ctx)
	if err != nil || len(list) != 1 || list[0].Path != dir {
		t.Fatalf("worktrees after remove = %+v, %v", list, err)
	}
}

// TestHookFixtureFires proves the hook fixture above can fail: plain git
// runs the user's post-checkout hook on worktree add.
func TestHookFixtureFires(t *testing.T) {
	dir, hookDir := userRepo(t)
	gitT(t, dir, "worktree", "add", "-q", filepath.Join(t.TempDir(), "wt"), "-b", "plain")
	if !strings.Contains(hooksRan(t, hookDir), "post-checkout") {
		t.Fatalf("the fixture's hooks do not run under plain git: %q", hooksRan(t, hookDir))
	}
}

func TestResumeSquashesRecoveryIntoOneCommit(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "resume", "main")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := wf.Head(ctx)
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "a.txt"), "first half\n")
	if cp, err := wf.RecoveryCheckpoint(ctx, "p1", "iteration limit"); err != nil || !cp.IsRecoveryCheckpoint {
		t.Fatalf("recovery = %+v, %v", cp, err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err == nil || !strings.Contains(err.Error(), "ResumePulse") {
		t.Fatalf("StartPulse on a kept branch: %v", err)
	}
	if _, err := wf.ResumePulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(wf.Worktree, "a.txt")); got != "first half\n" {
		t.Fatalf("resumed worktree a.txt = %q", got)
	}
	writeFile(t, filepath.Join(wf.Worktree, "a.txt"), "first half\nsecond half\n")
	cp, err := wf.CompletePulse(ctx, "p1", "feat: write a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if cp.Parent != head || gitT(t, dir, "rev-parse", cp.Commit+"^") != head {
		t.Fatalf("checkpoint %+v is not one commit on the workflow head %s", cp, head)
	}
	if got := gitT(t, dir, "show", cp.Commit+":a.txt"); got != "first half\nsecond half" {
		t.Fatalf("a.txt = %q", got)
	}
	if ids, _ := wf.PulseBranches(ctx); len(ids) != 0 {
		t.Fatalf("pulse branches left: %v", ids)
	}
}

func TestRecoveryWithoutChanges(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "idle", "main")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := wf.Head(ctx)
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	cp, err := wf.RecoveryCheckpoint(ctx, "p1", "failed")
	if err != nil {
		t.Fatal(err)
	}
	if cp.IsRecoveryCheckpoint || cp.Commit != head || !cp.Empty {
		t.Fatalf("recovery without changes = %+v", cp)
	}
	if ids, _ := wf.PulseBranches(ctx); !slices.Equal(ids, []string{"p1"}) {
		t.Fatalf("pulse branches = %v, want the kept p1", ids)
	}
	if err := wf.DeletePulseBranch(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatalf("restart after delete: %v", err)
	}
}

func TestWorkflowErrors(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "w", "main")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"bad name", func() error { _, err := r.CreateWorkflow(ctx, "a/b", "main"); return err }, "character '/' is not allowed"},
		{"existing", func() error { _, err := r.CreateWorkflow(ctx, "w", "main"); return err }, "already exists"},
		{"bad base", func() error { _, err := r.CreateWorkflow(ctx, "v", "nope"); return err }, `"nope" does not name a commit`},
		{"option base", func() error { _, err := r.CreateWorkflow(ctx, "v", "--all"); return err }, "is not accepted"},
		{"complete before start", func() error { _, err := wf.CompletePulse(ctx, "p1", "feat: x"); return err }, "start the pulse first"},
		{"bad summary", func() error { _, err := wf.CompletePulse(ctx, "p1", "did stuff"); return err }, "not a Conventional Commit"},
		{"bad pulse id", func() error { _, err := wf.StartPulse(ctx, "p 1"); return err }, "pulse id"},
		{"resume missing", func() error { _, err := wf.ResumePulse(ctx, "p9"); return err }, "does not exist"},
		{"recover missing", func() error { _, err := wf.RecoveryCheckpoint(ctx, "p9", ""); return err }, "does not exist"},
		{"open missing", func() error { _, err := r.OpenWorkflow(ctx, "zzz", "main"); return err }, "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p2"); err == nil || !strings.Contains(err.Error(), "complete or checkpoint the running pulse") {
		t.Fatalf("second StartPulse: %v", err)
	}
	if _, err := Open(ctx, t.TempDir(), Config{}); err == nil || !strings.Contains(err.Error(), "not inside a git work tree") {
		t.Fatalf("Open outside a repo: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(dir, ".git"), Config{}); err == nil || !strings.Contains(err.Error(), "bare repository or a git directory") {
		t.Fatalf("Open of a git dir: %v", err)
	}
}

// TestCompleteRefusesWhenUserHoldsWorkflowBranch: the user checked out the
// workflow branch in their tree during a pulse; fast-forwarding it would
// change their HEAD, so completion is refused and the work stays.
func TestCompleteRefusesWhenUserHoldsWorkflowBranch(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	gitT(t, dir, "stash", "-u", "-q")
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "held", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "checkout", "-q", "autarch/held")
	writeFile(t, filepath.Join(wf.Worktree, "x.txt"), "x\n")
	head, _ := wf.Head(ctx)
	if _, err := wf.CompletePulse(ctx, "p1", "feat: x"); err == nil || !strings.Contains(err.Error(), "is checked out in") {
		t.Fatalf("complete = %v", err)
	}
	if got, _ := wf.Head(ctx); got != head {
		t.Fatal("workflow branch moved under the user's HEAD")
	}
	gitT(t, dir, "checkout", "-q", "main")
	if _, err := wf.CompletePulse(ctx, "p1", "feat: x"); err != nil {
		t.Fatalf("complete after the user switched away: %v", err)
	}
}

func TestOpenWorkflowRecreatesMissingWorktree(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "again", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	// Reopen while it exists (mid-pulse): the same worktree.
	same, err := r.OpenWorkflow(ctx, "again", "main")
	if err != nil || same.Worktree != wf.Worktree || same.BaseCommit != wf.BaseCommit {
		t.Fatalf("reopen = %+v, %v", same, err)
	}
	if err := os.RemoveAll(wf.Worktree); err != nil {
		t.Fatal(err)
	}
	wf2, err := r.OpenWorkflow(ctx, "again", "main")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(wf2.Worktree, "lib", "lib.go")); !strings.Contains(got, "Two") {
		t.Fatalf("recreated worktree content %q", got)
	}
	if got := gitT(t, wf2.Worktree, "symbolic-ref", "HEAD"); got != "refs/heads/autarch/again" {
		t.Fatalf("recreated worktree on %s", got)
	}
	names, err := r.Workflows(ctx)
	if err != nil || !slices.Equal(names, []string{"again"}) {
		t.Fatalf("workflows = %v, %v", names, err)
	}
}

func TestStatusSeesTrackedChanges(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "pre", "main")
	if err != nil {
		t.Fatal(err)
	}
	st, err := wf.Status(ctx)
	if err != nil || !st.Clean() {
		t.Fatalf("fresh worktree status = %+v, %v", st, err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "README.md"), "changed by preflight\n")
	writeFile(t, filepath.Join(wf.Worktree, "gen", "out.txt"), "generated\n")
	writeFile(t, filepath.Join(wf.Worktree, "x.log"), "ignored\n")
	st, err = wf.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.TrackedChanges(), []string{"README.md"}) || !slices.Equal(st.Untracked(), []string{"gen/"}) {
		t.Fatalf("status = %+v", st)
	}
	if err := wf.ResetWorktree(ctx); err != nil {
		t.Fatal(err)
	}
	st, _ = wf.Status(ctx)
	if len(st.TrackedChanges()) != 0 || !slices.Equal(st.Untracked(), []string{"gen/"}) {
		t.Fatalf("after reset: %+v (untracked files must survive)", st)
	}
}

func TestRemoveKeepsBranchesUnlessAsked(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "keep", "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wf.StartPulse(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveWorkflow(ctx, "keep", RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(wf.Worktree); !os.IsNotExist(err) {
		t.Fatal("worktree not removed")
	}
	if got := branches(t, dir); !slices.Equal(got, []string{"autarch-pulse/keep/p1", "autarch/keep", "main"}) {
		t.Fatalf("branches = %v", got)
	}
	if out := gitT(t, dir, "worktree", "list", "--porcelain"); strings.Contains(out, "keep") {
		t.Fatalf("worktree still listed:\n%s", out)
	}
}

// TestIdentityAndEnvironment: a configured identity authors the commits,
// and inherited GIT_DIR / GIT_INDEX_FILE (as inside a user's hook) do not
// redirect any operation to another repository.
func TestIdentityAndEnvironment(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	other, _ := userRepo(t)
	otherBefore := snapshot(t, other)
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, ".git", "index"))
	t.Setenv("GIT_WORK_TREE", other)
	r, err := Open(ctx, dir, Config{Identity: Identity{Name: "Bot", Email: "bot@example.com"}})
	os.Unsetenv("GIT_DIR")
	os.Unsetenv("GIT_INDEX_FILE")
	os.Unsetenv("GIT_WORK_TREE")
	if err != nil {
		t.Fatal(err)
	}
	if r.Top() != dir || r.StateDir() != filepath.Join(dir, ".git", "autarch") {
		t.Fatalf("opened %s (state %s), want %s", r.Top(), r.StateDir(), dir)
	}
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	wf, err := r.CreateWorkflow(ctx, "env", "main")
	if err == nil {
		_, err = wf.StartPulse(ctx, "p1")
	}
	var cp Checkpoint
	if err == nil {
		writeFile(t, filepath.Join(wf.Worktree, "f.txt"), "f\n")
		cp, err = wf.CompletePulse(ctx, "p1", "feat: f")
	}
	os.Unsetenv("GIT_DIR")
	if err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, dir, "show", "-s", "--format=%an <%ae> %cn <%ce>", cp.Commit); got != "Bot <bot@example.com> Bot <bot@example.com>" {
		t.Fatalf("identity = %q", got)
	}
	sameSnapshot(t, "other repository", otherBefore, snapshot(t, other))
	if got := branches(t, other); !slices.Equal(got, []string{"main"}) {
		t.Fatalf("other repository got branches %v", got)
	}
	if _, err := Open(ctx, dir, Config{Identity: Identity{Name: "A <b>", Email: "x"}}); err == nil {
		t.Fatal("identity with '<' accepted")
	}
}
