// Package terminal holds the structured-output tools that end an agent's
// turn (spec/autarch-tools.md "Structured Output Tools"): submit_scope,
// ask_questions, submit_research, request_extension, submit_plan,
// complete_preflight, complete_pulse and complete_review. Each validates its
// arguments; a valid call is the agent's result for the turn.
package terminal

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/autarch-dev/autarch/tools"
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

// CommitTypes are the Conventional Commit types a pulse summary may use.
var CommitTypes = []string{"feat", "fix", "docs", "style", "refactor", "perf", "test", "chore", "build", "ci"}

var commitSummary = regexp.MustCompile(`^([a-z]+)(\([^()\s][^()]*\))?(!)?: (\S.*)$`)

// ValidCommitSummary checks a Conventional Commit summary line,
// type(scope): description, naming what is wrong and what is accepted.
func ValidCommitSummary(s string) error {
	first, _, _ := strings.Cut(s, "\n")
	m := commitSummary.FindStringSubmatch(first)
	if m == nil {
		return fmt.Errorf("summary %q is not a Conventional Commit: use type(scope): description, e.g. \"feat(auth): add token refresh\"", first)
	}
	for _, t := range CommitTypes {
		if m[1] == t {
			if len(first) > 100 {
				return fmt.Errorf("summary line is %d characters; keep it under 100", len(first))
			}
			return nil
		}
	}
	return fmt.Errorf("commit type %q is not one of %s", m[1], strings.Join(CommitTypes, ", "))
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
