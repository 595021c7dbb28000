package verify

import (
	"fmt"
	"strings"
	"time"
)

// Summary is one line per check of the run, for events and status.
func (g GateRun) Summary() string {
	if g.Skipped != "" {
		return "quality gates skipped: " + g.Skipped
	}
	var parts []string
	for _, r := range g.Reports {
		p := fmt.Sprintf("%s %s: %s", r.Kind, r.Check, r.Status)
		switch {
		case r.Kind == Test:
			p += fmt.Sprintf(" (%d passed, %d failed, %d skipped)", r.Passed, r.Failed, r.Skipped)
		case len(r.Issues) > 0:
			p += fmt.Sprintf(" (%d issues)", len(r.Issues))
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("quality gates in %s: %s", g.Duration.Round(time.Millisecond), strings.Join(parts, "; "))
}

// Finding is one blocking result of a gate run: a failing test, a compiler
// or lint error (warnings do not block), or a check that could not run.
type Finding struct {
	Check   string // "quality gate build (go build in .)"
	Summary string
}

// maxFindings caps the findings listed per check; the run keeps them all.
const maxFindings = 10

// Findings lists the run's blocking results, at most maxFindings per check
// (then a line saying there are more).
func (g GateRun) Findings() []Finding {
	var out []Finding
	for _, r := range g.Reports {
		if r.Status == StatusPass {
			continue
		}
		check := fmt.Sprintf("quality gate %s (%s in %s)", r.Kind, r.Check, r.Dir)
		if r.Status == StatusError {
			out = append(out, Finding{Check: check, Summary: "could not run: " + r.Error})
			continue
		}
		n := 0
		for _, f := range r.Failures {
			if n++; n > maxFindings {
				break
			}
			out = append(out, Finding{Check: check, Summary: f.Name + ": " + indent(f.Message)})
		}
		for _, is := range r.Issues {
			if is.Severity != "error" {
				continue
			}
			if n++; n > maxFindings {
				break
			}
			pos := fmt.Sprintf("%s:%d", is.File, is.Line)
			if is.Column > 0 {
				pos += fmt.Sprintf(":%d", is.Column)
			}
			out = append(out, Finding{Check: check, Summary: fmt.Sprintf("%s: %s [%s]", pos, is.Message, is.Rule)})
		}
		if n > maxFindings {
			out = append(out, Finding{Check: check, Summary: "and more: run the check to see them all"})
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
