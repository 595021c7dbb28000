package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// The workflow commands and requests (editor/lspext.go): each decodes its
// params, calls the session and encodes the result.

// call decodes params into P and calls fn on the session.
func call[P, R any](s *Server, ctx context.Context, params json.RawMessage, fn func(*app.Session, context.Context, P) (R, error)) (any, error) {
	var p P
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	d, err := s.domain()
	if err != nil {
		return nil, err
	}
	return fn(d, ctx, p)
}

// done adapts a domain call without a result to one answered with {}.
func done[P any](fn func(*app.Session, context.Context, P) error) func(*app.Session, context.Context, P) (struct{}, error) {
	return func(d *app.Session, ctx context.Context, p P) (struct{}, error) {
		return struct{}{}, fn(d, ctx, p)
	}
}

func (s *Server) newWorkflow(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Start)
}

func (s *Server) discuss(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).Discuss))
}

func (s *Server) stopWorkflow(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).Stop))
}

func (s *Server) resumeWorkflow(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Resume)
}

func (s *Server) answer(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).Answer))
}

// reviewBranch runs a whole review inside the request: $/cancelRequest
// (or exit) cancels it.
func (s *Server) reviewBranch(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Review)
}

func (s *Server) search(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Search)
}

func (s *Server) reindex(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done(func(d *app.Session, ctx context.Context, _ struct{}) error { return d.Reindex(ctx) }))
}

func (s *Server) applyWorkflow(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Apply)
}

func (s *Server) pulseDiff(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Diff)
}

// openFile opens a file of the workspace at a line with
// window/showDocument (clients that support it).
func (s *Server) openFile(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Open)
}

func (s *Server) workflows(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, func(d *app.Session, ctx context.Context, _ struct{}) ([]editor.WorkflowSummary, error) {
		return d.Workflows(ctx)
	})
}

func (s *Server) workflow(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).Workflow)
}

func (s *Server) fileAt(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).FileAt)
}
