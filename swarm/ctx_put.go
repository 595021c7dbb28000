package swarm

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/tools"
)

type ctxPutParams struct {
	Reason          string `json:"reason"`
	Key             string `json:"key" jsonschema:"Key, e.g. AgentName.task (letters, digits, - / _ = and dot-separated parts)"`
	Value           any    `json:"value" jsonschema:"Any JSON value; for findings {ok, task, data, ts, agent}"`
	Mode            string `json:"mode,omitempty" jsonschema:"set (default), if_absent or if_version"`
	ExpectedVersion *int64 `json:"expected_version,omitempty" jsonschema:"For if_version: the version ctx_get returned"`

	raw json.RawMessage // value as sent
}

// UnmarshalJSON keeps value's JSON as sent (numbers exact).
func (p *ctxPutParams) UnmarshalJSON(b []byte) error {
	type plain ctxPutParams
	var v struct {
		plain
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = ctxPutParams(v.plain)
	p.raw = v.Value
	return nil
}

func newCtxPut(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectNone, Category: tools.CategoryMeta}, "ctx_put", func(ctx context.Context, _ *tools.Session, p ctxPutParams) (any, error) {
		if p.Key == PhaseKey {
			return nil, &Refusal{Err: "write_refused", Code: 403, Message: "phase is set by the orchestrator each round; read it with coord_status, and mark your progress in phase_ready." + b.agent}
		}
		var expected uint64
		if p.ExpectedVersion != nil {
			if *p.ExpectedVersion < 1 {
				return nil, badInput("expected_version must be 1 or more (the version ctx_get returned)")
			}
			expected = uint64(*p.ExpectedVersion)
		} else if p.Mode == ModeIfVersion {
			return nil, badInput("mode if_version needs expected_version (the version ctx_get returned)")
		}
		if len(p.raw) == 0 {
			p.raw = json.RawMessage("null")
		}
		r, err := b.s.Put(ctx, p.Key, p.raw, p.Mode, expected)
		if err != nil {
			return nil, err
		}
		if !r.OK {
			return tools.JSONResult(r, true), nil
		}
		return r, nil
	})
}
