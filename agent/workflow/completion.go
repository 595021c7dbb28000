package workflow

import (
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// EscapeHatchAfter is how many rejected completions it takes before the
// pulsing agent is told about unresolvedIssues (progressive rejection).
const EscapeHatchAfter = 2

// UnresolvedIssue is one entry of complete_pulse's unresolvedIssues.
type UnresolvedIssue = store.UnresolvedIssue

// Failure is a tool failure since the pulse began that is still unresolved.
type Failure struct {
	Tool    string
	Summary string
}

// Verdict is the outcome of validating a complete_pulse call.
type Verdict struct {
	// Accepted completes the pulse.
	Accepted bool
	// Halt stops orchestration after this pulse for human review
	// (accepted with unresolvedIssues).
	Halt bool
	// Message is what the agent is told when the completion is rejected.
	Message string
}

// ValidateCompletion applies the spec's completion protocol. failures are
// the unresolved tool failures since the pulse began; rejections is how many
// completions of this pulse were already rejected; unresolved is the
// escape-hatch field of this call.
func ValidateCompletion(failures []Failure, rejections int, unresolved []UnresolvedIssue) Verdict {
	revealed := rejections >= EscapeHatchAfter
	if len(unresolved) > 0 {
		if !revealed {
			return Verdict{Message: "unresolvedIssues is not available yet: fix the failures below and call complete_pulse again.\n" + listFailures(failures)}
		}
		for i, u := range unresolved {
			if strings.TrimSpace(u.Issue) == "" || strings.TrimSpace(u.Reason) == "" {
				return Verdict{Message: fmt.Sprintf("unresolvedIssues[%d] needs both issue and reason", i)}
			}
		}
		return Verdict{Accepted: true, Halt: true}
	}
	if len(failures) == 0 {
		return Verdict{Accepted: true}
	}
	msg := "Completion rejected: these tool failures since the pulse began are not resolved. Fix them (re-run the build or tests until they pass), then call complete_pulse again.\n" + listFailures(failures)
	if rejections+1 >= EscapeHatchAfter {
		msg += "\nIf an issue genuinely cannot be fixed within this pulse (a flaky test, an environment problem), call complete_pulse with unresolvedIssues: [{\"issue\": ..., \"reason\": ...}]. This halts automatic orchestration until a human reviews the pulse."
	}
	return Verdict{Message: msg}
}

func listFailures(failures []Failure) string {
	var b strings.Builder
	for _, f := range failures {
		fmt.Fprintf(&b, "- %s: %s\n", f.Tool, f.Summary)
	}
	return b.String()
}
