package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type coordNextParams struct {
	Reason   string `json:"reason"`
	LeaseSec *int   `json:"lease_sec,omitempty" jsonschema:"How long the item is yours, in seconds (default 180)"`
}

func newCoordNext(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_next", func(ctx context.Context, _ *tools.Session, p coordNextParams) (any, error) {
		it, err := b.s.Next(ctx, b.agent, seconds(p.LeaseSec))
		if err != nil {
			return nil, err
		}
		return map[string]any{"item": it}, nil
	})
}
