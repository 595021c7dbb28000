package swarm

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/tools"
)

type coordEnqueueParams struct {
	Reason  string         `json:"reason"`
	Kind    string         `json:"kind" jsonschema:"The kind of work, e.g. scan_docs"`
	Payload map[string]any `json:"payload,omitempty" jsonschema:"What the worker needs, as a JSON object"`
}

func newCoordEnqueue(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "coord_enqueue", func(ctx context.Context, _ *tools.Session, p coordEnqueueParams) (any, error) {
		payload, err := json.Marshal(p.Payload)
		if err != nil {
			return nil, badInput("payload: %v", err)
		}
		it, err := b.s.Enqueue(ctx, p.Kind, payload)
		if err != nil {
			return nil, err
		}
		return map[string]any{"enqueued": true, "id": it.ID, "kind": it.Kind}, nil
	})
}
