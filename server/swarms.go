package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// The swarm commands and requests (editor/swarm.go): each decodes its
// params, calls the session's swarm call and encodes the result.

func (s *Server) startSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).StartSwarm)
}

func (s *Server) stopSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).StopSwarm)
}

func (s *Server) resumeSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).ResumeSwarm)
}

func (s *Server) decideSwarmProposal(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).DecideSwarm)
}

func (s *Server) listSwarms(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, func(d *app.Session, ctx context.Context, _ struct{}) ([]editor.SwarmSnapshot, error) {
		return d.Swarms(ctx)
	})
}
