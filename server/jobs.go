package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// The job commands and requests (editor/jobs.go): each decodes its params,
// calls the session's job call and encodes the result.

func (s *Server) startJob(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).StartJob)
}

func (s *Server) resumeJob(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).ResumeJob)
}

func (s *Server) stopJob(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).StopJob))
}

func (s *Server) answerEscalation(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, done((*app.Session).AnswerEscalation))
}

func (s *Server) applyJob(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, (*app.Session).ApplyJob)
}

func (s *Server) listJobs(ctx context.Context, params json.RawMessage) (any, error) {
	return call(s, ctx, params, func(d *app.Session, ctx context.Context, _ struct{}) ([]editor.JobSummary, error) {
		return d.Jobs(ctx)
	})
}
