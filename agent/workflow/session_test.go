package workflow

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// The message of a completed workflow follows its review: a branch the
// review recommends rejecting is not "ready to apply".
func TestCompletedMessageFollowsTheReview(t *testing.T) {
	wf := store.Workflow{Name: "calc-ops", WorkflowBranch: "autarch/calc-ops"}
	tests := []struct {
		name     string
		review   *editor.ReviewView
		typ      editor.MessageType
		want     string
		wantNone string
	}{
		{"no review", nil, editor.Info, "completed; branch autarch/calc-ops is ready to apply", ""},
		{"approve", &editor.ReviewView{Recommendation: "approve"}, editor.Info, "recommends approving it; branch autarch/calc-ops is ready to apply", ""},
		{"reject", &editor.ReviewView{Recommendation: "reject", Summary: "Mul adds.\nMore."}, editor.Warning,
			"its review recommends rejecting it (Mul adds.): read the review in the side panel", "ready to apply"},
		{"manual review", &editor.ReviewView{Recommendation: "manual_review"}, editor.Info, "asks for a manual review: read the comments", "ready to apply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, msg := completedMessage(wf, tt.review)
			if typ != tt.typ || !strings.Contains(msg, tt.want) || tt.wantNone != "" && strings.Contains(msg, tt.wantNone) {
				t.Errorf("completedMessage = %v %q, want %v with %q", typ, msg, tt.typ, tt.want)
			}
		})
	}
}
