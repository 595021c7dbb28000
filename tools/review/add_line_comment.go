package review

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type addLineCommentParams struct {
	Reason    string `json:"reason"`
	FilePath  string `json:"file_path" jsonschema:"The file path this comment applies to"`
	StartLine int    `json:"start_line" jsonschema:"The starting line number for the comment"`
	commentBody
	EndLine    *int   `json:"end_line,omitempty" jsonschema:"The ending line number (inclusive). Omit for single-line comments."`
	Suggestion string `json:"suggestion,omitempty" jsonschema:"Optional replacement text for lines start_line..end_line, offered to the user as a one-click fix"`
}

func newAddLineComment(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "add_line_comment", describe("add_line_comment"), tools.ReadOnly, func(ctx context.Context, s *tools.Session, p addLineCommentParams) (tools.Result, error) {
		c := Comment{Type: "line", FilePath: p.FilePath, StartLine: p.StartLine, Severity: p.Severity, Category: p.Category, Description: p.Description, Suggestion: p.Suggestion}
		if p.EndLine != nil {
			c.EndLine = *p.EndLine
			if c.EndLine < c.StartLine {
				return tools.OpErrorResult("end_line must be greater than or equal to start_line"), nil
			}
		}
		return added(ctx, b, c, "Line comment added successfully")
	})
}
