package workflow

import (
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools/verify"
)

// EscapeHatchAfter is how many rejected completions it takes before the
// pulsing agent is told about unresolvedIssues (progressive rejection).
const EscapeHatchAfter = 2

// escapeHatchRevealed reports whether, after this many rejected
// completions, the pulsing agent may use unresolvedIssues (and is offered
// complete_pulse's schema with it).
func escapeHatchRevealed(rejections int) bool { return rejections >= EscapeHatchAfter }

// UnresolvedIssue is one entry of complete_pulse's unresolvedIssues.
type UnresolvedIssue = store.UnresolvedIssue

// Failure is a tool failure since the pulse began that is still
// unresolved, or a quality gate's finding.
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
	revealed := escapeHatchRevealed(rejections)
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
	msg := "Completion rejected: the quality gates found failures in what this pulse changed, or tool failures since the pulse began are not resolved. Fix them (run_tests and run_lint show them), then call complete_pulse again.\n" + listFailures(failures)
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

// GateFailures turns a gate run's blocking findings (verify.GateRun
// Findings) into completion failures.
func GateFailures(run verify.GateRun) []Failure {
	var out []Failure
	for _, f := range run.Findings() {
		out = append(out, Failure{Tool: f.Check, Summary: f.Summary})
	}
	return out
}
