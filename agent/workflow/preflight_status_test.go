package workflow

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestPreflightTakesOneStatus (issue 35): preflight's end checks the
// worktree's tracked files and records its untracked artifacts from one
// git status (each stats every file: a second took 0.3 s on a 23k-file
// tree under load), and the artifacts are still recorded.
func TestPreflightTakesOneStatus(t *testing.T) {
	ctx := context.Background()
	dir := testkit.NewRepo(t, map[string]string{"main.go": "package main\n"})
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, log := filepath.Join(t.TempDir(), "git"), filepath.Join(t.TempDir(), "log")
	script := "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in status) echo status >> '" + log + "';; esac; done\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	e := benchEngine(t, dir, []string{
		step("shell", map[string]any{"reason": "build output", "command": "mkdir -p out && echo artifact > out/build.txt"}),
		step("complete_preflight", map[string]any{"reason": "done", "summary": "ok", "setupCommands": []string{}, "buildSuccess": true, "baselinesRecorded": 0}),
	}, nil)
	if e.cfg.Repo, err = git.Open(ctx, dir, git.Config{GitPath: bin}); err != nil {
		t.Fatal(err)
	}
	wf := quickWorkflow(t, e, "one-status", StagePreflight)
	if err := e.preflight(ctx, wf); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(log)
	if n := strings.Count(string(data), "status\n"); n != 1 {
		t.Errorf("preflight ran git status %d times, want 1", n)
	}
	gw, err := e.cfg.Repo.OpenWorkflow(ctx, "one-status", wf.BaseCommit)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := gw.Artifacts(ctx); err != nil || !slices.Equal(got, []string{"out/"}) {
		t.Errorf("artifacts recorded: %q (%v), want [out/]", got, err)
	}
}
