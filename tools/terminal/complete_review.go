package terminal

import (
	"context"
	"fmt"

	"github.com/autarch-dev/autarch/tools"
)

// ReviewDone is complete_review's parameters.
type ReviewDone struct {
	Reason         string `json:"reason"`
	Recommendation string `json:"recommendation" jsonschema:"The recommendation: approve, reject, or manual_review"`
	Summary        string `json:"summary" jsonschema:"A summary explanation for the recommendation"`
}

func newCompleteReview() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, CompleteReview, describe(CompleteReview), tools.Terminal, func(ctx context.Context, s *tools.Session, p ReviewDone) (tools.Result, error) {
		switch p.Recommendation {
		case "approve", "reject", "manual_review":
		default:
			return tools.OpErrorResult(fmt.Sprintf("Invalid recommendation '%s'. Must be one of: approve, reject, manual_review.", p.Recommendation)), nil
		}
		if blank(p.Summary) {
			return tools.OpErrorResult("Summary is required."), nil
		}
		return tools.JSONResult(map[string]any{"success": true, "recommendation": p.Recommendation, "message": "Review completed successfully"}, false), nil
	})
}
