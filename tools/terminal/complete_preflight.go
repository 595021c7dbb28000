package terminal

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

// Preflight is complete_preflight's parameters.
type Preflight struct {
	Reason            string   `json:"reason"`
	Summary           string   `json:"summary" jsonschema:"Brief description of setup completed"`
	SetupCommands     []string `json:"setupCommands" jsonschema:"List of commands that were executed"`
	BuildSuccess      bool     `json:"buildSuccess" jsonschema:"Whether the project builds successfully"`
	BaselinesRecorded int      `json:"baselinesRecorded" jsonschema:"Count of baseline issues recorded"`
}

func newCompletePreflight() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, CompletePreflight, describe(CompletePreflight), tools.Terminal, func(ctx context.Context, s *tools.Session, p Preflight) (tools.Result, error) {
		if blank(p.Summary) {
			return invalid("summary is required"), nil
		}
		if p.BaselinesRecorded < 0 {
			return invalid("baselinesRecorded cannot be negative"), nil
		}
		if got := len(s.Baselines()); p.BaselinesRecorded != got {
			return invalid("baselinesRecorded is %d but %d baselines were recorded in this session (with record_baseline, and by run_tests and run_lint from what they found)", p.BaselinesRecorded, got), nil
		}
		return accepted(CompletePreflight, nil), nil
	})
}
