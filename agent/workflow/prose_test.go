package workflow_test

import (
	"context"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestProseQuestionsRejected: a question asked in prose is sent back to the
// agent with the rule (questions only through ask_questions, 000-94), at
// most twice per stage; the third reaches the user as a message.
func TestProseQuestionsRejected(t *testing.T) {
	h := loadHarness(t, "testdata/other/prose-question.txt", scenarioConfig{Approvals: []string{"approve"}})
	h.ed.Answers = [][][]string{{{"No"}}}
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: "Add Neg", Name: "neg", Path: workflow.PathQuick})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("workflow ended %s (%s): %v", wf.Status, wf.StatusReason, err)
	}
	var shown []string
	h.mu.Lock()
	for _, ev := range h.events {
		if ev.Kind == "message" {
			shown = append(shown, ev.Stage+": "+ev.Text)
		}
	}
	h.mu.Unlock()
	if want := []string{"pulsing: Shall I write docs as well?"}; !slices.Equal(shown, want) {
		t.Errorf("messages shown to the user = %q, want %q", shown, want)
	}
	testkit.CheckModel(t, h.model)
}

func TestAsksInProse(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Should I add a test?", true},
		{"Done.\n\nShould I add a test?\n", true},
		{"**Which option do you prefer?**", true},
		{"I wondered why? It was the cache.\n\nNeg is written.", false},
		{"Neg is written.", false},
		{"Options:\n- A?\n- B", true},
		{"", false},
		{"全部好了吗？", true},
	}
	for _, tt := range tests {
		if got := workflow.AsksInProse(tt.text); got != tt.want {
			t.Errorf("AsksInProse(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
