package review

import (
	"context"
	_ "embed"
	"errors"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed get_scope_card.md
var getScopeCardDesc string

type getScopeCardParams struct {
	Reason string `json:"reason"`
}

func newGetScopeCard(b Backend) tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "get_scope_card", getScopeCardDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p getScopeCardParams) (tools.Result, error) {
		sc, err := b.ScopeCard(ctx)
		switch {
		case errors.Is(err, ErrNoScope):
			return tools.ErrorResult(ErrNoScope.Error()), nil
		case err != nil:
			return tools.OpErrorResult(err.Error()), nil
		}
		return tools.JSONResult(map[string]any{"success": true, "title": sc.Title, "description": sc.Description,
			"in_scope": nonNil(sc.InScope), "out_of_scope": nonNil(sc.OutOfScope), "constraints": nonNil(sc.Constraints)}, false), nil
	})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
