package review

import (
	"context"
	_ "embed"
	"errors"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed get_diff.md
var getDiffDesc string

type getDiffParams struct {
	Reason string `json:"reason"`
}

func newGetDiff(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "get_diff", getDiffDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p getDiffParams) (tools.Result, error) {
		diff, err := b.Diff(ctx)
		switch {
		case errors.Is(err, ErrNoDiff):
			return tools.ErrorResult(ErrNoDiff.Error()), nil
		case err != nil:
			return tools.OpErrorResult(err.Error()), nil
		}
		return tools.JSONResult(map[string]any{"success": true, "diff": diff}, false), nil
	})
}
