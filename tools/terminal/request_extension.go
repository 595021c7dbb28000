package terminal

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

// Extension is request_extension's parameters; reason is both the common
// traceability parameter and why more time is needed.
type Extension struct {
	Reason    string   `json:"reason" jsonschema:"Why additional time/exploration is required"`
	Completed []string `json:"completed" jsonschema:"Concrete work already completed in this turn"`
	Remaining []string `json:"remaining" jsonschema:"Concrete work still required"`
}

func newRequestExtension() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, RequestExtension, describe(RequestExtension), tools.Terminal, func(ctx context.Context, s *tools.Session, p Extension) (tools.Result, error) {
		if len(p.Remaining) == 0 {
			return invalid("remaining needs at least one item: say what work is left"), nil
		}
		return accepted(RequestExtension, nil), nil
	})
}
