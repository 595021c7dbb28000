package workflow

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// TestPlanCardNumbersFromOne: the plan card (the panel, the toasts, the
// CLI) numbers a stored plan's pulses 1, 2, … (issue 31.4: it said "2. … 3.").
func TestPlanCardNumbersFromOne(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), store.FileName), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	wf := store.Workflow{Name: "calc", Stage: "planning", Path: "full"}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	pl := store.Plan{WorkflowID: wf.ID, ApproachSummary: "Add Sub, then Mul.", Pulses: []store.Pulse{
		{PlannedID: "pulse-1", Title: "Add Sub", Description: "Sub", EstimatedSize: "small"},
		{PlannedID: "pulse-2", Title: "Add Mul", Description: "Mul", EstimatedSize: "small", DependsOn: []string{"pulse-1"}},
	}}
	if err := st.AddPlan(ctx, &pl); err != nil {
		t.Fatal(err)
	}
	got := planCard(pl).approval.Detail
	for _, want := range []string{"\n1. **Add Sub** `pulse-1`", "\n2. **Add Mul** `pulse-2`"} {
		if !strings.Contains(got, want) {
			t.Errorf("the plan card lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\n3. ") {
		t.Errorf("the plan card numbers past its two pulses:\n%s", got)
	}
}
