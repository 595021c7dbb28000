package team

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git/gitattack"
)

// argsFor are valid arguments of the git tools.
func argsFor(tool string) map[string]any {
	switch tool {
	case "commit_changes":
		return map[string]any{"message": "feat: the agent's change"}
	case "create_branch":
		return map[string]any{"name": "x"}
	}
	return map[string]any{}
}

// TestTeamGitRunsNothingAgentsPlanted: for every attack an agent can plant
// in its job's worktree, get_repo_state and commit_changes (Autarch's own
// git on the host) never run the attack's program; commit_changes commits
// the agent's plain change and leaves out, and reports, the nested
// repositories and gitlinks.
func TestTeamGitRunsNothingAgentsPlanted(t *testing.T) {
	for _, a := range gitattack.Attacks() {
		for _, tool := range []string{"get_repo_state", "commit_changes"} {
			t.Run(a.Name+"/"+tool, func(t *testing.T) {
				r := newRepo(t, map[string]string{"agent.txt": "base\n"})
				before := r.userState(t)
				h := newHarness(t, r.wt, &fakeJob{id: "feedc0de99", mode: Genius, approve: true}) // no test runner: the user allows commits without tests (003-30)
				if got, res := h.call("create_branch", map[string]any{"name": "attack"}); res.Failed {
					t.Fatalf("create_branch: %v", got)
				}
				marker := filepath.Join(t.TempDir(), "pwned")
				a.Plant(t, r.wt, marker)
				got, res := h.call(tool, argsFor(tool))
				if gitattack.Ran(marker) {
					t.Fatalf("%s ran the program the agent planted: %s", tool, res.Output)
				}
				if after := r.userState(t); after != before {
					t.Errorf("the user's working tree changed:\n%s\n%s", before, after)
				}
				if tool != "commit_changes" {
					return
				}
				expect(t, got, res, "", map[string]any{"committed": true})
				tree := gitattack.Git(t, r.wt, "ls-tree", "-r", "HEAD")
				if strings.Contains(tree, "160000") || strings.Contains(tree, ".hidden/") || strings.Contains(tree, ".agent.cfg") || !strings.Contains(tree, "agent.txt") {
					t.Errorf("commit tree:\n%s", tree)
				}
				if strings.Contains(a.Name, "nested") || strings.Contains(a.Name, ".git file") {
					if !strings.Contains(res.Output, "Autarch does not commit nested repositories or gitlinks") {
						t.Errorf("the result does not say what was left out: %s", res.Output)
					}
				}
			})
		}
	}
}

// TestGitToolsIgnoreARepositoryPlantedInAPlainFolder: a session started in
// a folder that was no repository: a .git an agent creates there (with a
// filter, and core.worktree pointing outside) is never used.
func TestGitToolsIgnoreARepositoryPlantedInAPlainFolder(t *testing.T) {
	for _, tool := range []string{"get_repo_state", "commit_changes", "create_branch"} {
		t.Run(tool, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plain")
			write(t, dir, map[string]string{"a.txt": "a\n"})
			h := newHarness(t, dir, &fakeJob{id: "feedc0de99", mode: Genius})
			marker := filepath.Join(t.TempDir(), "pwned")
			gitattack.PlainFolderRepo(t, dir, marker)
			_, res := h.call(tool, argsFor(tool))
			if gitattack.Ran(marker) {
				t.Fatalf("%s ran the filter of a planted repository: %s", tool, res.Output)
			}
			refusedSaying(t, res, "was not in a git repository when the session started")
		})
	}
}

// TestAttackPlantedFromTheSandbox plants a nested repository with a clean
// filter and registers it as a gitlink from inside the real sandbox (the
// shell tool, bubblewrap), as a test run_tests runs would; get_repo_state
// and commit_changes then run on the host.
func TestAttackPlantedFromTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	r := newRepo(t, map[string]string{"agent.txt": "base\n"})
	job := &fakeJob{id: "feedc0de99", mode: Genius, approve: true} // no test runner: the user allows commits without tests (003-30)
	ts, err := Tools(job, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := tools.ForRole("pulsing", tools.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	shell, _ := shared.Get("shell")
	reg, err := tools.NewRegistry(append(ts, shell)...)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, r.wt, job)
	h.e = tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	if got, res := h.call("create_branch", map[string]any{"name": "attack"}); res.Failed {
		t.Fatalf("create_branch: %v", got)
	}
	marker := filepath.Join(t.TempDir(), "pwned")
	prog := gitattack.Program(t, marker)
	plant := strings.Join([]string{
		"export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b",
		"git init -q sub", "cd sub", "echo one > f.txt", "echo '* filter=x' > .gitattributes",
		"git add -A", "git commit -qm nested", "git config filter.x.clean '" + prog + "'",
		"git config core.fsmonitor '" + prog + "'", "echo two > f.txt", "cd ..",
		"echo changed > agent.txt", "echo planted",
	}, " && ")
	raw, _ := json.Marshal(map[string]any{"command": plant, "reason": "plant"})
	res, err := h.e.Call(context.Background(), h.s, "shell", raw)
	if err != nil || !strings.Contains(res.Output, "planted") {
		t.Fatalf("planting from the sandbox failed: %v %s", err, res.Output)
	}
	// Registering it as a gitlink needs the worktree's index, which no
	// sandbox can write.
	raw, _ = json.Marshal(map[string]any{"command": "git update-index --add --cacheinfo 160000,$(git -C sub rev-parse HEAD),sub", "reason": "register"})
	if res, err := h.e.Call(context.Background(), h.s, "shell", raw); err != nil || !res.Failed || !strings.Contains(res.Output, "Read-only file system") {
		t.Fatalf("registering a gitlink from the sandbox: %v %s, want refused (read-only index)", err, res.Output)
	}
	if gitattack.Ran(marker) {
		t.Fatal("planting ran the program already")
	}
	for _, tool := range []string{"get_repo_state", "commit_changes"} {
		got, res := h.call(tool, argsFor(tool))
		if gitattack.Ran(marker) {
			t.Fatalf("%s ran the program planted from the sandbox: %v", tool, got)
		}
		if tool == "commit_changes" && (res.Failed || !strings.Contains(res.Output, "nested repository")) {
			t.Errorf("commit_changes: %s", res.Output)
		}
	}
}
