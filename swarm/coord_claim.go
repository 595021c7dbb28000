package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type coordClaimParams struct {
	Reason   string `json:"reason"`
	ID       string `json:"id" jsonschema:"The item's id"`
	LeaseSec *int   `json:"lease_sec,omitempty" jsonschema:"How long the item is yours, in seconds (default 180)"`
}

func newCoordClaim(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_claim", func(ctx context.Context, _ *tools.Session, p coordClaimParams) (any, error) {
		it, err := b.s.Claim(ctx, b.agent, p.ID, seconds(p.LeaseSec))
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": it.ID, "kind": it.Kind, "lease_until": it.LeaseUntil, "claimed_by": it.ClaimedBy}, nil
	})
}
