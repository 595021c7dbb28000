package workflow

import (
	"fmt"
	"strings"
	"time"

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

// maxGateFindings caps the findings of one check listed in a rejection;
// the gate run stored with the pulse keeps them all.
const maxGateFindings = 10

// GateFailures turns a gate run's failing checks into completion
// failures: one per failing test, compiler error or lint error (warnings
// do not block), one for a check that could not run.
func GateFailures(run verify.GateRun) []Failure {
	var out []Failure
	for _, r := range run.Reports {
		if r.Status == verify.StatusPass {
			continue
		}
		tool := fmt.Sprintf("quality gate %s (%s in %s)", r.Kind, r.Check, r.Dir)
		if r.Status == verify.StatusError {
			out = append(out, Failure{Tool: tool, Summary: "could not run: " + r.Error})
			continue
		}
		n := 0
		for _, f := range r.Failures {
			if n++; n > maxGateFindings {
				break
			}
			out = append(out, Failure{Tool: tool, Summary: f.Name + ": " + indent(f.Message)})
		}
		for _, is := range r.Issues {
			if is.Severity != "error" {
				continue
			}
			if n++; n > maxGateFindings {
				break
			}
			pos := fmt.Sprintf("%s:%d", is.File, is.Line)
			if is.Column > 0 {
				pos += fmt.Sprintf(":%d", is.Column)
			}
			out = append(out, Failure{Tool: tool, Summary: fmt.Sprintf("%s: %s [%s]", pos, is.Message, is.Rule)})
		}
		if n > maxGateFindings {
			out = append(out, Failure{Tool: tool, Summary: "and more: run the check to see them all"})
		}
	}
	return out
}

// indent keeps a multi-line message readable inside a list item.
func indent(msg string) string {
	const maxLines = 30
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], "…")
	}
	return strings.Join(lines, "\n    ")
}

// GateSummary is one line per check of a gate run, for events and status.
func GateSummary(run verify.GateRun) string {
	if run.Skipped != "" {
		return "quality gates skipped: " + run.Skipped
	}
	var parts []string
	for _, r := range run.Reports {
		p := fmt.Sprintf("%s %s: %s", r.Kind, r.Check, r.Status)
		switch {
		case r.Kind == verify.Test:
			p += fmt.Sprintf(" (%d passed, %d failed, %d skipped)", r.Passed, r.Failed, r.Skipped)
		case len(r.Issues) > 0:
			p += fmt.Sprintf(" (%d issues)", len(r.Issues))
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("quality gates in %s: %s", run.Duration.Round(time.Millisecond), strings.Join(parts, "; "))
}
