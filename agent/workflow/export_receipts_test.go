package workflow

import (
	"context"

	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// BackfillReceipts runs backfillReceipts on a workflow's pulses.
func BackfillReceipts(ctx context.Context, e *Engine, wf store.Workflow) error {
	pulses, err := e.cfg.Store.WorkflowPulses(ctx, wf.ID)
	if err != nil {
		return err
	}
	e.backfillReceipts(ctx, wf, pulses)
	return nil
}
