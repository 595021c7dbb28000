package review

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed add_review_comment.md
var addReviewCommentDesc string

type addReviewCommentParams struct {
	Reason      string `json:"reason"`
	Severity    string `json:"severity" jsonschema:"The severity level: High, Medium, or Low"`
	Category    string `json:"category" jsonschema:"The category of the comment (e.g., security, performance, style, bug, architecture)"`
	Description string `json:"description" jsonschema:"The description/content of the comment"`
}

func newAddReviewComment(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "add_review_comment", addReviewCommentDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p addReviewCommentParams) (tools.Result, error) {
		c := Comment{Type: "review", Severity: p.Severity, Category: p.Category, Description: p.Description}
		return added(ctx, b, c, "Review comment added successfully")
	})
}
