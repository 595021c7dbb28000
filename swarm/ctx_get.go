package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type ctxGetParams struct {
	Reason string `json:"reason"`
	Key    string `json:"key" jsonschema:"The key to read"`
}

func newCtxGet(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "ctx_get", func(ctx context.Context, _ *tools.Session, p ctxGetParams) (any, error) {
		return b.s.Get(ctx, p.Key)
	})
}
