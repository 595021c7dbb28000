package job

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestRevertJobCommits: a stopped job with three commits on its branch;
// reverting from the second makes two revert commits on the job's branch
// (its tree is the first commit's again, in the job's worktree too),
// refuses while the job's run lock is held, a commit not the job's and
// uncommitted work in its worktree, and
// leaves the user's branch alone.
func TestRevertJobCommits(t *testing.T) {
	r, j := newTestRunner(t, &testkit.Editor{T: t})
	ctx := context.Background()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", j.WorktreePath, "-c", "user.name=U", "-c", "user.email=u@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	main := git("rev-parse", "main")
	git("switch", "-q", "-c", "ai/test/fix")
	var commits []string
	for i, content := range []string{"one\n", "one\ntwo\n", "one\ntwo\nthree\n"} {
		if err := os.WriteFile(filepath.Join(j.WorktreePath, "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "f.txt")
		git("commit", "-q", "-m", "step "+string(rune('1'+i)))
		commits = append(commits, git("rev-parse", "HEAD"))
	}
	if err := r.store.SetJobBranch(ctx, j.ID, "ai/test/fix"); err != nil {
		t.Fatal(err)
	}

	// Start holds the job's run lock for its Run: another runner (process)
	// is refused.
	other, err := New(Config{Engine: r.cfg.Engine})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Revert(ctx, j.ID, commits[1]); !run.IsLocked(err) || !strings.Contains(err.Error(), "stop it first") {
		t.Errorf("revert of a job another runner holds: %v", err)
	}
	r.Release(j.ID)
	if err := r.store.SetJobStatus(ctx, j.ID, store.JobStopped, "stopped by the test"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Revert(ctx, j.ID, "main"); err == nil || !strings.Contains(err.Error(), "is not one of job") {
		t.Errorf("revert of a commit not the job's: %v", err)
	}
	if err := os.WriteFile(filepath.Join(j.WorktreePath, "f.txt"), []byte("work in progress\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Revert(ctx, j.ID, commits[1]); err == nil || !strings.Contains(err.Error(), "uncommitted changes to f.txt") {
		t.Errorf("revert over uncommitted work: %v", err)
	}
	git("checkout", "--", "f.txt")
	res, err := r.Revert(ctx, j.ID, commits[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != 2 || res.Commits[0].Reverts != commits[2] || res.Commits[1].Reverts != commits[1] {
		t.Errorf("reverts = %+v", res.Commits)
	}
	if a, b := git("rev-parse", "ai/test/fix^{tree}"), git("rev-parse", commits[0]+"^{tree}"); a != b {
		t.Errorf("the branch tree is not the first commit's")
	}
	if got, _ := os.ReadFile(filepath.Join(j.WorktreePath, "f.txt")); string(got) != "one\n" || git("status", "--porcelain") != "" {
		t.Errorf("the job's worktree is not at the new tip: f.txt = %q", got)
	}
	if git("rev-parse", "main") != main {
		t.Errorf("the user's branch moved")
	}
}
