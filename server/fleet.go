package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
)

// The fleet's requests (autarch.fleet.natsUrl): Run in Background, the
// answer to a fleet run's question, Apply of a fleet run's branch.

func (s *Server) fleetSubmit(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).SubmitFleet)
}

func (s *Server) fleetAnswer(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).AnswerFleet))
}

func (s *Server) fleetApply(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).ApplyFleet)
}
