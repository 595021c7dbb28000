package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type ctxKeysParams struct {
	Reason string `json:"reason"`
	Prefix string `json:"prefix,omitempty" jsonschema:"Only keys starting with this, e.g. Gemini."`
}

func newCtxKeys(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "ctx_keys", func(ctx context.Context, _ *tools.Session, p ctxKeysParams) (any, error) {
		keys, err := b.s.Keys(ctx, p.Prefix)
		if err != nil {
			return nil, err
		}
		return map[string]any{"keys": keys}, nil
	})
}
