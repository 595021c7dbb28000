package workflow_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestGatedCommitBuilds runs the quality-gate scenarios whose pulses wrote
// broken code first, and builds, vets and tests what their commits hold: a
// pulse accepted through the gates is never a broken commit.
func TestGatedCommitBuilds(t *testing.T) {
	for _, name := range []string{"gate-compile", "gate-test", "gate-lint"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ar, err := txtar.ParseFile(filepath.Join("testdata", "scenarios", name+".txt"))
			must(t, err)
			var cfg scenarioConfig
			for _, f := range ar.Files {
				if f.Name == "config.json" {
					must(t, json.Unmarshal(f.Data, &cfg))
				}
			}
			h := newHarness(t, ar, cfg)
			ctx := context.Background()
			wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
			must(t, err)
			if wf, err = h.engine.Run(ctx, wf.ID); err != nil {
				t.Fatalf("run: %v", err)
			}
			out := t.TempDir()
			gitRun(t, h.dir, "worktree", "add", "-q", "--detach", out, git.WorkflowBranch(wf.Name))
			defer gitRun(t, h.dir, "worktree", "remove", "--force", out)
			for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
				cmd := exec.Command("go", args...)
				cmd.Dir, cmd.Env = out, append(os.Environ(), "GOFLAGS=-mod=mod")
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("go %v on the workflow branch: %v\n%s", args, err, b)
				}
			}
		})
	}
}
