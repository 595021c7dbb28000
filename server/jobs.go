package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/editor"
)

// The job commands and requests (editor/jobs.go): each decodes its params,
// calls the session's jobs and encodes the result.

// jobCall decodes params into P and calls fn on the session's jobs.
func jobCall[P, R any](s *Server, ctx context.Context, params json.RawMessage, fn func(*job.Session, context.Context, P) (R, error)) (any, error) {
	var p P
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	j, err := s.jobSession()
	if err != nil {
		return nil, err
	}
	return fn(j, ctx, p)
}

// jobSession is the session's jobs, made on first use.
func (s *Server) jobSession() (*job.Session, error) {
	d, err := s.domain()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.jobs == nil {
		s.jobs = job.NewSession(d, s.docs.byPath, s.log)
	}
	return s.jobs, nil
}

func (s *Server) startJob(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, (*job.Session).Start)
}

func (s *Server) resumeJob(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, (*job.Session).Resume)
}

func (s *Server) stopJob(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, func(j *job.Session, ctx context.Context, ref editor.JobRef) (struct{}, error) {
		return struct{}{}, j.Stop(ctx, ref)
	})
}

func (s *Server) answerEscalation(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, func(j *job.Session, ctx context.Context, p editor.AnswerEscalationParams) (struct{}, error) {
		return struct{}{}, j.AnswerEscalation(ctx, p)
	})
}

func (s *Server) applyJob(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, (*job.Session).Apply)
}

func (s *Server) listJobs(ctx context.Context, params json.RawMessage) (any, error) {
	return jobCall(s, ctx, params, func(j *job.Session, ctx context.Context, _ struct{}) ([]editor.JobSummary, error) {
		return j.Jobs(ctx)
	})
}
