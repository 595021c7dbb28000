package review

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type addFileCommentParams struct {
	Reason   string `json:"reason"`
	FilePath string `json:"file_path" jsonschema:"The file path this comment applies to"`
	commentBody
}

func newAddFileComment(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "add_file_comment", describe("add_file_comment"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p addFileCommentParams) (tools.Result, error) {
		c := Comment{Type: "file", FilePath: p.FilePath, Severity: p.Severity, Category: p.Category, Description: p.Description}
		return added(ctx, b, c, "File comment added successfully")
	})
}
