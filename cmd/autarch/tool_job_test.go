package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolAgentJobHasAJobContext (003-45: every tool receives a
// ToolContext): `autarch tool --agent job` gives the team tools an ad-hoc
// job, so create_branch and record_analysis work there instead of
// answering "works for a job only".
func TestToolAgentJobHasAJobContext(t *testing.T) {
	base := t.TempDir()
	repo, wt := filepath.Join(base, "repo"), filepath.Join(base, "wt")
	gitCmd(t, base, "init", "-q", "-b", "main", repo)
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCmd(t, repo, "add", "-A")
	gitCmd(t, repo, "-c", "user.name=T", "-c", "user.email=t@x", "commit", "-q", "-m", "initial")
	gitCmd(t, repo, "worktree", "add", "-q", "--detach", wt, "main")
	calls := []struct{ name, args, want string }{
		{"create_branch", `{"reason":"r","name":"fix-x"}`, `"created":true`},
		{"record_analysis", `{"reason":"r","findings":"a.txt holds a","files":["a.txt"]}`, `"recorded":true`},
	}
	for _, c := range calls {
		code, out, stderr := run(t, "tool", "--root", wt, "--agent", "job", "--mode", "yolo", c.name, c.args)
		if code != 0 || !strings.Contains(out, c.want) || strings.Contains(out, "works for a job only") {
			t.Errorf("%s: exit %d, %s\n%s", c.name, code, out, stderr)
		}
	}
	if code, _, stderr := run(t, "tool", "--root", wt, "--agent", "job", "--job-mode", "turbo", "get_repo_state", `{"reason":"r"}`); code != 2 || !strings.Contains(stderr, `unknown job mode "turbo"`) {
		t.Errorf("bad job mode: exit %d, %s", code, stderr)
	}
}
