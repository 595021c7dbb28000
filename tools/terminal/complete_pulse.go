package terminal

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed complete_pulse.md
var completePulseDesc string

// UnresolvedIssue is an acknowledged issue of the escape hatch.
type UnresolvedIssue struct {
	Issue  string `json:"issue"`
	Reason string `json:"reason"`
}

// PulseDone is complete_pulse's parameters.
type PulseDone struct {
	Reason           string            `json:"reason"`
	Summary          string            `json:"summary" jsonschema:"Conventional commit message (e.g. feat(auth): implement login flow)"`
	FilesChanged     []string          `json:"filesChanged" jsonschema:"List of file paths that were modified"`
	UnresolvedIssues []UnresolvedIssue `json:"unresolvedIssues,omitempty" jsonschema:"Acknowledged issues that could not be fixed (only when offered)"`
}

func newCompletePulse() tools.Tool {
	return tools.Define(CompletePulse, completePulseDesc, tools.Terminal, func(ctx context.Context, s *tools.Session, p PulseDone) (tools.Result, error) {
		if err := ValidCommitSummary(p.Summary); err != nil {
			return invalid("%v", err), nil
		}
		for i, u := range p.UnresolvedIssues {
			if blank(u.Issue) || blank(u.Reason) {
				return invalid("unresolvedIssues[%d] needs both issue and reason", i), nil
			}
		}
		return accepted(CompletePulse, nil), nil
	})
}
