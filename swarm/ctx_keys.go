package swarm

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed ctx_keys.md
var ctxKeysDesc string

type ctxKeysParams struct {
	Reason string `json:"reason"`
	Prefix string `json:"prefix,omitempty" jsonschema:"Only keys starting with this, e.g. Gemini."`
}

func newCtxKeys(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "ctx_keys", ctxKeysDesc, func(ctx context.Context, _ *tools.Session, p ctxKeysParams) (any, error) {
		keys, err := b.s.Keys(ctx, p.Prefix)
		if err != nil {
			return nil, err
		}
		return map[string]any{"keys": keys}, nil
	})
}
