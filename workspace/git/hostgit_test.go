package git_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
	"github.com/autarch-dev/autarch/workspace/git/gitattack"
)

// attackWorkflow is a user's repository with one commit on main, opened,
// and its workflow "attack".
func attackWorkflow(t *testing.T) (dir string, r *git.Repo, w *git.Workflow) {
	t.Helper()
	ctx := context.Background()
	dir = filepath.Join(t.TempDir(), "user")
	gitattack.Git(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	testkit.WriteFile(t, filepath.Join(dir, "main.go"), "package main\n")
	testkit.WriteFile(t, filepath.Join(dir, "agent.txt"), "base\n")
	gitattack.Git(t, dir, "add", "-A")
	gitattack.Git(t, dir, "commit", "-q", "-m", "initial")
	r, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if w, err = r.CreateWorkflow(ctx, "attack", "main"); err != nil {
		t.Fatal(err)
	}
	return dir, r, w
}

// TestHostGitRunsNothingAgentsPlanted: for every attack an agent can
// plant in a workflow's worktree, Autarch's own git operations on it
// (status, the pulse's checkpoint commit, a recovery checkpoint, a job's
// wrap-up removing its worktree) never run the attack's program, and the
// commits leave out the nested repositories and gitlinks.
func TestHostGitRunsNothingAgentsPlanted(t *testing.T) {
	ops := []struct {
		name string
		run  func(t *testing.T, r *git.Repo, w *git.Workflow) []git.Excluded
	}{
		{"Status", func(t *testing.T, r *git.Repo, w *git.Workflow) []git.Excluded {
			if _, err := w.Status(context.Background()); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
		{"CompletePulse", func(t *testing.T, r *git.Repo, w *git.Workflow) []git.Excluded {
			cp, err := w.CompletePulse(context.Background(), "p1", "feat: the agent's change")
			if err != nil {
				t.Fatal(err)
			}
			return cp.Excluded
		}},
		{"RecoveryCheckpoint", func(t *testing.T, r *git.Repo, w *git.Workflow) []git.Excluded {
			cp, err := w.RecoveryCheckpoint(context.Background(), "p1", "stopped")
			if err != nil {
				t.Fatal(err)
			}
			return cp.Excluded
		}},
		{"job wrap-up (worktree remove --force)", func(t *testing.T, r *git.Repo, w *git.Workflow) []git.Excluded {
			if _, err := r.Git(context.Background(), r.Top(), nil, "worktree", "remove", "--force", w.Worktree); err != nil {
				t.Fatal(err)
			}
			return nil
		}},
	}
	for _, a := range gitattack.Attacks() {
		for _, op := range ops {
			t.Run(a.Name+"/"+op.name, func(t *testing.T) {
				ctx := context.Background()
				dir, r, w := attackWorkflow(t)
				if _, err := w.StartPulse(ctx, "p1"); err != nil {
					t.Fatal(err)
				}
				marker := filepath.Join(t.TempDir(), "pwned")
				a.Plant(t, w.Worktree, marker)
				// Autarch opens the repository again (a new process takes
				// its environment as it is now).
				r, err := git.Open(ctx, dir, git.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if w, err = r.OpenWorkflow(ctx, "attack", "main"); err != nil {
					t.Fatal(err)
				}
				excluded := op.run(t, r, w)
				if gitattack.Ran(marker) {
					t.Fatalf("%s ran the program the agent planted (%s exists)", op.name, marker)
				}
				if op.name != "CompletePulse" && op.name != "RecoveryCheckpoint" {
					return
				}
				var commit string
				if op.name == "CompletePulse" {
					commit = gitattack.Git(t, dir, "rev-parse", "autarch/attack")
				} else {
					commit = gitattack.Git(t, dir, "rev-parse", git.PulseBranch("attack", "p1"))
				}
				tree := gitattack.Git(t, dir, "ls-tree", "-r", commit)
				if strings.Contains(tree, "160000") || strings.Contains(tree, "f.txt") || strings.Contains(tree, ".hidden/") || strings.Contains(tree, ".agent.cfg") {
					t.Errorf("the commit holds a gitlink or a nested repository's file:\n%s", tree)
				}
				if !strings.Contains(tree, "agent.txt") {
					t.Errorf("the agent's plain change is not committed:\n%s", tree)
				}
				if strings.Contains(a.Name, "nested") || strings.Contains(a.Name, ".git file") {
					if len(excluded) == 0 || !strings.Contains(git.ExcludedMessage(excluded), "Autarch does not commit nested repositories or gitlinks") {
						t.Errorf("excluded = %+v, want the nested repository reported", excluded)
					}
				}
			})
		}
	}
}

// TestOpenWorktreeNeverDiscovers: a repository opened for a known common
// directory acts on it even when the agent planted a .git (with a filter
// and core.worktree pointing outside) inside the worktree, and a folder in
// no worktree of it is refused.
func TestOpenWorktreeNeverDiscovers(t *testing.T) {
	ctx := context.Background()
	_, r, w := attackWorkflow(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	planted := filepath.Join(w.Worktree, "pkg")
	gitattack.PlainFolderRepo(t, planted, marker)
	wr, err := git.OpenWorktree(ctx, planted, r.CommonDir(), git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := wr.Git(ctx, planted, nil, "status", "--porcelain", "-uall")
	if err != nil {
		t.Fatal(err)
	}
	if gitattack.Ran(marker) {
		t.Fatal("status ran the filter of a .git planted in the worktree")
	}
	if top, _ := wr.Git(ctx, planted, nil, "rev-parse", "--show-toplevel"); strings.TrimSpace(string(top)) != w.Worktree {
		t.Errorf("acted on %q, want the worktree %s (status %q)", top, w.Worktree, out)
	}
	if _, err := git.OpenWorktree(ctx, t.TempDir(), r.CommonDir(), git.Config{}); err == nil {
		t.Error("a folder in no worktree of the repository was opened")
	}
	if _, err := os.Stat(filepath.Join(w.Worktree, ".git")); err != nil {
		t.Fatal(err)
	}
}

// TestOpenWorktreeInASubmodule: a session rooted in a submodule's checkout
// (its git directory under .git/modules, core.worktree naming the
// checkout) opens that repository.
func TestOpenWorktreeInASubmodule(t *testing.T) {
	ctx := context.Background()
	dir, _, _ := attackWorkflow(t)
	lib := filepath.Join(t.TempDir(), "lib")
	gitattack.Git(t, t.TempDir(), "init", "-q", "-b", "main", lib)
	testkit.WriteFile(t, filepath.Join(lib, "lib.go"), "package lib\n")
	gitattack.Git(t, lib, "add", "-A")
	gitattack.Git(t, lib, "commit", "-q", "-m", "lib")
	gitattack.Git(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	sub := filepath.Join(dir, "lib")
	r, err := git.OpenWorktree(ctx, sub, filepath.Join(dir, ".git", "modules", "lib"), git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Top() != sub {
		t.Errorf("top = %s, want %s", r.Top(), sub)
	}
	if out, err := r.Git(ctx, sub, nil, "ls-files"); err != nil || strings.TrimSpace(string(out)) != "lib.go" {
		t.Errorf("ls-files = %q, %v", out, err)
	}
}
