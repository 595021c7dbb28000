package swarm

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed coord_status.md
var coordStatusDesc string

type coordStatusParams struct {
	Reason string `json:"reason"`
}

func newCoordStatus(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "coord_status", coordStatusDesc, func(ctx context.Context, _ *tools.Session, _ coordStatusParams) (any, error) {
		return b.s.Status(ctx)
	})
}
