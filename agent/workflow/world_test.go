package workflow_test

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/workspace/git"
)

// complete starts task in w and runs it; the test fails unless the
// workflow completes.
func (w *parallelWorld) complete(t *testing.T, task workflow.Task) store.Workflow {
	t.Helper()
	ctx := context.Background()
	wf, err := w.engine.Start(ctx, task)
	must(t, err)
	wf, err = w.engine.Run(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("run: %v, workflow %s (%s)", err, wf.Status, wf.StatusReason)
	}
	return wf
}

// openState opens the repository at dir and its workflow store (closed
// when the test ends).
func openState(t testing.TB, dir string) (*git.Repo, *store.Store) {
	t.Helper()
	ctx := context.Background()
	repo, err := git.Open(ctx, dir, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, store.Path(repo.StateDir()), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return repo, st
}
