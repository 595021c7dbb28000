package swarm

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/tools"
)

type coordCompleteParams struct {
	Reason string `json:"reason"`
	ID     string `json:"id" jsonschema:"The item's id"`
	Result any    `json:"result,omitempty" jsonschema:"What you found or did, any JSON"`
}

func newCoordComplete(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_complete", func(ctx context.Context, _ *tools.Session, p coordCompleteParams) (any, error) {
		result, err := json.Marshal(p.Result)
		if err != nil {
			return nil, badInput("result: %v", err)
		}
		if err := b.s.Complete(ctx, b.agent, p.ID, result); err != nil {
			return nil, err
		}
		return map[string]any{"id": p.ID, "status": StatusDone}, nil
	})
}
