package review

import (
	"context"
	"errors"

	"github.com/autarch-dev/autarch/tools"
)

func newGetDiff(b Backend) tools.Tool {
	return newGetter("get_diff", describe("get_diff"), ErrNoDiff, b.Diff, func(diff string) map[string]any {
		return map[string]any{"success": true, "diff": diff}
	})
}

// getterParams are the parameters of a tool that reads one thing of the
// review: only why.
type getterParams struct {
	Reason string `json:"reason"`
}

// newGetter is a read-only tool that answers with what get returns, as
// answer puts it; missing (get has nothing to give) and any other error
// are results the model reads.
func newGetter[T any](name, desc string, missing error, get func(context.Context) (T, error), answer func(T) map[string]any) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, name, desc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p getterParams) (tools.Result, error) {
		v, err := get(ctx)
		switch {
		case errors.Is(err, missing):
			return tools.ErrorResult(missing.Error()), nil
		case err != nil:
			return tools.OpErrorResult(err.Error()), nil
		}
		return tools.JSONResult(answer(v), false), nil
	})
}
