package workflow_test

import (
	"context"
	"sync"
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

// diamondSteps are the scripts of diamondPlan's pulses: each adds its
// part (A1, B, C, D) in a commit of its own.
func diamondSteps() map[string]string {
	return map[string]string{
		"pulse-1": pulseSteps("feat(parts): add A1", map[string]string{"a.go": "package parts\n\n// A is the first part.\nfunc A() int { return 1 }\n"}),
		"pulse-2": pulseSteps("feat(parts): add B", map[string]string{"b.go": "package parts\n\n// B uses A.\nfunc B() int { return A() + 1 }\n"}),
		"pulse-3": pulseSteps("feat(parts): add C", map[string]string{"c.go": "package parts\n\n// C uses A.\nfunc C() int { return A() + 2 }\n"}),
		"pulse-4": pulseSteps("feat(parts): add D", map[string]string{"d.go": "package parts\n\n// D uses B and C.\nfunc D() int { return B() + C() }\n"}),
	}
}

// recorder keeps the events a workflow emits, in order.
type recorder struct {
	mu     sync.Mutex
	events []workflow.Event
	// onEvent, when set, sees every event as it happens (under mu).
	onEvent func(workflow.Event)
}

// record keeps ev and shows it to onEvent.
func (r *recorder) record(ev workflow.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	if r.onEvent != nil {
		r.onEvent(ev)
	}
}
