package workflow_test

import (
	"context"
	"errors"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
)

// A card is answered only by approve, always or reject: a client's
// "abort" (offered for tool calls only) or an unknown answer leaves it
// pending, never approves it.
func TestCardNotApprovedByOtherAnswers(t *testing.T) {
	for _, answer := range []string{"abort", "dismiss"} {
		t.Run(answer, func(t *testing.T) {
			h := loadHarness(t, "testdata/other/card-other-answers.txt", scenarioConfig{Approvals: []string{answer}})
			ctx := context.Background()
			wf, err := h.engine.Start(ctx, workflow.Task{Text: "Add Half", Name: "half"})
			if err != nil {
				t.Fatal(err)
			}
			wf, err = h.engine.Run(ctx, wf.ID)
			if !errors.Is(err, workflow.ErrWaiting) || wf.Stage != "scoping" {
				t.Fatalf("run: %v in stage %s, want ErrWaiting in scoping", err, wf.Stage)
			}
			open, err := h.store.OpenPending(ctx, wf.ID)
			if err != nil || len(open) != 1 || open[0].Kind != "scope" {
				t.Fatalf("pending = %+v, %v; want the scope card still pending", open, err)
			}
		})
	}
}
