package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
)

// Revert, redo and receipts of a workflow's pulses (issue 32): each
// decodes its params, calls the session and encodes the result.

func (s *Server) planRevert(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).PlanRevert)
}

func (s *Server) revertPulse(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).RevertPulse)
}

func (s *Server) redoPulse(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).RedoPulse)
}

func (s *Server) pulseReceipt(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).PulseReceipt)
}
