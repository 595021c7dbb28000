package workflow_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestGatedCommitBuilds runs the quality-gate scenarios whose pulses wrote
// broken code first, and builds, vets and tests what their commits hold: a
// pulse accepted through the gates is never a broken commit.
func TestGatedCommitBuilds(t *testing.T) {
	for _, name := range []string{"gate-compile", "gate-test", "gate-lint"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, cfg := openScenario(t, filepath.Join("testdata", "scenarios", name+".txt"))
			ctx := context.Background()
			wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
			must(t, err)
			if wf, err = h.engine.Run(ctx, wf.ID); err != nil {
				t.Fatalf("run: %v", err)
			}
			out := t.TempDir()
			testkit.Git(t, h.dir, "worktree", "add", "-q", "--detach", out, git.WorkflowBranch(wf.Name))
			defer testkit.Git(t, h.dir, "worktree", "remove", "--force", out)
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
