package swarm

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed coord_next.md
var coordNextDesc string

type coordNextParams struct {
	Reason   string `json:"reason"`
	LeaseSec *int   `json:"lease_sec,omitempty" jsonschema:"How long the item is yours, in seconds (default 180)"`
}

func newCoordNext(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_next", coordNextDesc, func(ctx context.Context, _ *tools.Session, p coordNextParams) (any, error) {
		it, err := b.s.Next(ctx, b.agent, seconds(p.LeaseSec))
		if err != nil {
			return nil, err
		}
		return map[string]any{"item": it}, nil
	})
}
