package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type coordExtendParams struct {
	Reason    string `json:"reason"`
	ID        string `json:"id" jsonschema:"The item's id"`
	ExtendSec int    `json:"extend_sec" jsonschema:"Seconds to add to your lease"`
}

func newCoordExtend(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_extend", func(ctx context.Context, _ *tools.Session, p coordExtendParams) (any, error) {
		until, err := b.s.Extend(ctx, b.agent, p.ID, seconds(&p.ExtendSec))
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": p.ID, "lease_until": until}, nil
	})
}
