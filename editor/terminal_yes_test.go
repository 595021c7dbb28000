package editor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

// TestYesSaysWhatItAnswered: under --yes every card, extension and
// question is answered without a person, and the log says what was asked
// and what was answered, for approvals as for questions.
func TestYesSaysWhatItAnswered(t *testing.T) {
	tests := []struct {
		name string
		ask  func(t *editor.Terminal) error
		want string
	}{
		{"approval", func(term *editor.Terminal) error {
			v, err := term.Approve(context.Background(), editor.Approval{Title: "Approve the plan (1 pulse)", Reason: "the plan agent's plan"})
			if err == nil && v.Decision != editor.DecisionApprove {
				t.Errorf("decision = %v", v.Decision)
			}
			return err
		}, "? Approve the plan (1 pulse)\n  auto-answered (--yes): approved\n"},
		{"question", func(term *editor.Terminal) error {
			_, err := term.Ask(context.Background(), []editor.Question{{Type: editor.SingleSelect, Prompt: "Which name?", Options: []string{"Sub", "Minus"}}})
			return err
		}, "? Which name?\n  auto-answered (--yes): Sub\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out strings.Builder
			term := &editor.Terminal{In: strings.NewReader(""), Out: &out, AutoApprove: true}
			if err := tt.ask(term); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("log = %q, want %q", out.String(), tt.want)
			}
		})
	}
}
