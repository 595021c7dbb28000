package orchestrate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestRevertRounds: a swarm with three round commits; reverting from round
// 2 makes two revert commits on the swarm's branch (its tree is round 1's
// again, in its worktree too), is refused while the swarm runs and for a
// round without a commit, and leaves the user's branch alone.
func TestRevertRounds(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	gitRun(t, work, "init", "-q", "-b", "main")
	gitRun(t, work, "commit", "-q", "--allow-empty", "-m", "initial")
	repo, err := git.Open(ctx, work, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSpace(gitRun(t, work, "rev-parse", "HEAD"))
	const id = "0123456789ab"
	s, err := openStore(Dir(repo.StateDir()), id)
	if err != nil {
		t.Fatal(err)
	}
	st := &State{ID: id, Branch: BranchPrefix + id, Base: base, Worktree: repo.WorktreePath("swarm-" + id), Status: StatusStopped}
	if err := ensureWorktree(ctx, repo, st); err != nil {
		t.Fatal(err)
	}
	var commits []string
	for round, content := range []string{"one\n", "one\ntwo\n", "one\ntwo\nthree\n"} {
		st.Round = round + 1
		if err := os.WriteFile(filepath.Join(st.Worktree, "f.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c, _, err := commitRound(ctx, repo, st, []string{"f.txt"})
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, c)
	}
	if err := s.saveState(st); err != nil {
		t.Fatal(err)
	}

	unlock, err := kernel.Lock(lockPath(s.dir), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RevertRounds(ctx, repo, repo.StateDir(), id, 2); !kernel.IsLocked(err) {
		t.Errorf("revert of a running swarm: %v", err)
	}
	unlock()
	if _, err := RevertRounds(ctx, repo, repo.StateDir(), id, 4); err == nil || !strings.Contains(err.Error(), "no commit of round 4 or later") {
		t.Errorf("revert of a round without a commit: %v", err)
	}
	made, err := RevertRounds(ctx, repo, repo.StateDir(), id, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(made) != 2 || made[0].Reverts != commits[2] || made[1].Reverts != commits[1] {
		t.Errorf("reverts = %+v", made)
	}
	if a, b := gitRun(t, work, "rev-parse", st.Branch+"^{tree}"), gitRun(t, work, "rev-parse", commits[0]+"^{tree}"); a != b {
		t.Errorf("the branch tree is not round 1's")
	}
	if got, _ := os.ReadFile(filepath.Join(st.Worktree, "f.txt")); string(got) != "one\n" {
		t.Errorf("the swarm's worktree f.txt = %q", got)
	}
	if strings.TrimSpace(gitRun(t, work, "rev-parse", "main")) != base {
		t.Errorf("the user's branch moved")
	}
}
