// Package terminal holds the structured-output tools that end an agent's
// turn (spec/autarch-tools.md "Structured Output Tools"): submit_scope,
// ask_questions, submit_research, request_extension, submit_plan,
// complete_preflight, complete_pulse and complete_review. Each validates its
// arguments; a valid call is the agent's result for the turn.
package terminal

import (
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Names of the terminal tools.
const (
	SubmitScope       = "submit_scope"
	AskQuestions      = "ask_questions"
	SubmitResearch    = "submit_research"
	RequestExtension  = "request_extension"
	SubmitPlan        = "submit_plan"
	CompletePreflight = "complete_preflight"
	CompletePulse     = "complete_pulse"
	CompleteReview    = "complete_review"
)

// ForRole returns the terminal tools of an agent role (the spec's block
// tool table).
func ForRole(role string) []tools.Tool {
	switch role {
	case "scoping":
		return []tools.Tool{newSubmitScope(), newAskQuestions()}
	case "research":
		return []tools.Tool{newSubmitResearch(), newRequestExtension(), newAskQuestions()}
	case "plan":
		return []tools.Tool{newSubmitPlan()}
	case "preflight":
		return []tools.Tool{newCompletePreflight(), newRequestExtension()}
	case "pulsing":
		return []tools.Tool{newCompletePulse(), newRequestExtension()}
	case "review":
		return []tools.Tool{newCompleteReview()}
	}
	return nil
}

// accepted is the result of a valid terminal call.
func accepted(name string, extra map[string]any) tools.Result {
	out := map[string]any{"success": true, "message": name + " accepted; your turn ends here."}
	for k, v := range extra {
		out[k] = v
	}
	return tools.JSONResult(out, false)
}

// invalid is the result of an invalid terminal call the model must fix.
func invalid(format string, args ...any) tools.Result {
	return tools.OpErrorResult(fmt.Sprintf(format, args...))
}

// ValidCommitSummary checks a pulse summary: a Conventional Commit,
// type(scope): description, with one of git.CommitTypes (the same check
// the checkpoint commit applies).
func ValidCommitSummary(s string) error { return git.ValidateSummary(s) }

func blank(s string) bool { return strings.TrimSpace(s) == "" }
