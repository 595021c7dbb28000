package swarm

import (
	"context"

	"github.com/autarch-dev/autarch/tools"
)

type coordStatusParams struct {
	Reason string `json:"reason"`
}

func newCoordStatus(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "coord_status", func(ctx context.Context, _ *tools.Session, _ coordStatusParams) (any, error) {
		return b.s.Status(ctx)
	})
}
