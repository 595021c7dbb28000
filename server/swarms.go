package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
)

// The swarm commands and requests (editor/swarm.go): each decodes its
// params, calls the session's swarms and encodes the result.

// swarmCall decodes params into P and calls fn on the session's swarms.
func swarmCall[P, R any](s *Server, ctx context.Context, params json.RawMessage, fn func(*orchestrate.Session, context.Context, P) (R, error)) (any, error) {
	var p P
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	sw, err := s.swarmSession(ctx)
	if err != nil {
		return nil, err
	}
	return fn(sw, ctx, p)
}

// swarmSession is the session's swarms, made on first use over the
// workflow engine's repository, model and editor; the project's NATS
// connection lives as long as the session.
func (s *Server) swarmSession(ctx context.Context) (*orchestrate.Session, error) {
	d, err := s.domain()
	if err != nil {
		return nil, err
	}
	e, err := d.Engine(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.swarms == nil {
		cfg := e.Config()
		connect := func(ctx context.Context) (orchestrate.OpenEngine, error) {
			open, closeNATS, err := orchestrate.ConnectNATS(ctx, cfg.Repo.StateDir(), cfg.Repository.Swarm, s.log)
			if err != nil {
				return nil, err
			}
			if err := d.Go(ctx, func(ctx context.Context) { <-ctx.Done(); closeNATS() }); err != nil {
				closeNATS()
				return nil, err
			}
			return open, nil
		}
		s.swarms = orchestrate.NewSession(orchestrate.SessionConfig{Repo: cfg.Repo, Model: cfg.Model, DefaultModel: cfg.Settings.Model,
			Connect: connect, UI: cfg.Editor, Go: d.Go, Log: s.log, Hooks: cfg.Hooks, Guardrails: cfg.Guardrails, Tools: cfg.Tools})
	}
	return s.swarms, nil
}

func (s *Server) startSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return swarmCall(s, ctx, params, (*orchestrate.Session).Start)
}

func (s *Server) stopSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return swarmCall(s, ctx, params, (*orchestrate.Session).Stop)
}

func (s *Server) resumeSwarm(ctx context.Context, params json.RawMessage) (any, error) {
	return swarmCall(s, ctx, params, (*orchestrate.Session).Resume)
}

func (s *Server) decideSwarmProposal(ctx context.Context, params json.RawMessage) (any, error) {
	return swarmCall(s, ctx, params, (*orchestrate.Session).Decide)
}

func (s *Server) listSwarms(ctx context.Context, params json.RawMessage) (any, error) {
	return swarmCall(s, ctx, params, func(sw *orchestrate.Session, ctx context.Context, _ struct{}) ([]editor.SwarmSnapshot, error) {
		return sw.Swarms(ctx)
	})
}
