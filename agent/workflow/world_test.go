package workflow_test

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
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
