package review

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type addReviewCommentParams struct {
	Reason string `json:"reason"`
	commentBody
}

func newAddReviewComment(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "add_review_comment", describe("add_review_comment"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p addReviewCommentParams) (tools.Result, error) {
		c := Comment{Type: "review", Severity: p.Severity, Category: p.Category, Description: p.Description}
		return added(ctx, b, c, "Review comment added successfully")
	})
}
