package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// ServiceConfig wires the jobs of one application session.
type ServiceConfig struct {
	// Open makes the runners' configuration, on first use (the project's
	// wiring: app.JobConfig).
	Open func(ctx context.Context) (Config, error)
	// Go runs a job in the background for the session's lifetime.
	Go func(ctx context.Context, fn func(ctx context.Context)) error
	// Document is the user's open copy of a file (absolute path), for
	// applying as an edit.
	Document func(path string) (string, bool)
	// Events receives what the jobs do, typed (nil: dropped).
	Events func(editor.JobEvent)
	Log    *slog.Logger
}

// Service is the jobs of one application session: the runner (made on
// first use), runs in the background for the session's lifetime, how each
// run ended told to the user. The application session (package app) holds
// one for every transport.
type Service struct {
	cfg ServiceConfig

	mu     sync.Mutex
	runner *Runner
	ui     editor.Client
}

// NewService makes the jobs of an application session.
func NewService(cfg ServiceConfig) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Document == nil {
		cfg.Document = func(string) (string, bool) { return "", false }
	}
	return &Service{cfg: cfg}
}

// Runner is the session's job runner, made on first use.
func (s *Service) Runner(ctx context.Context) (*Runner, error) { return s.open(ctx) }

// open returns the runner, made on first use.
func (s *Service) open(ctx context.Context) (*Runner, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runner != nil {
		return s.runner, nil
	}
	cfg, err := s.cfg.Open(ctx)
	if err != nil {
		return nil, err
	}
	cfg.Events = s.cfg.Events
	r, err := New(cfg)
	if err != nil {
		return nil, err
	}
	s.runner, s.ui = r, cfg.Editor
	return r, nil
}

// Start starts a job and runs it in the background.
func (s *Service) Start(ctx context.Context, p editor.StartJobParams) (editor.JobRef, error) {
	return withRunner(ctx, s, func(r *Runner) (editor.JobRef, error) {
		j, err := r.Start(ctx, Task{Text: p.Task, Mode: p.Mode, Base: p.Base})
		if err != nil {
			return editor.JobRef{}, run.Invalid(err)
		}
		return editor.JobRef{JobID: j.ID, Name: j.Name}, s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.Run(ctx, j.ID) })
	})
}

// Resume resumes a stopped, failed or waiting job in the background.
func (s *Service) Resume(ctx context.Context, ref editor.JobRef) (editor.JobRef, error) {
	return withRunner(ctx, s, func(r *Runner) (editor.JobRef, error) {
		j, err := r.Find(ctx, ref.JobID)
		if err != nil {
			return editor.JobRef{}, run.Invalid(err)
		}
		if j.Status == store.JobDone {
			return editor.JobRef{}, run.Invalid(fmt.Errorf("job %s is done: apply it, or start a new job", j.Name))
		}
		return editor.JobRef{JobID: j.ID, Name: j.Name}, s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.ResumeWithGuidance(ctx, j.ID, ref.Guidance) })
	})
}

// Stop stops a running or waiting job; its run ends within the stop poll
// and the user is told it can be resumed.
func (s *Service) Stop(ctx context.Context, ref editor.JobRef) error {
	r, err := s.open(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(ref.JobID) == "" {
		return run.Invalid(errors.New("jobId is required: the id, an id prefix of at least 4 characters, or the name of a job (autarch/jobs lists them)"))
	}
	return run.Invalid(r.Stop(ctx, ref.JobID, ""))
}

// AnswerEscalation answers a waiting job's escalation and resumes it in
// the background.
func (s *Service) AnswerEscalation(ctx context.Context, p editor.AnswerEscalationParams) error {
	r, err := s.open(ctx)
	if err != nil {
		return err
	}
	j, err := r.AnswerEscalation(ctx, p.JobID, p.EscalationID, p.Approved, p.Feedback)
	if err != nil {
		return run.Invalid(err)
	}
	if j.Status == store.JobDone {
		return nil
	}
	return s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.Resume(ctx, j.ID) })
}

// Jobs lists the jobs, most recently updated first.
func (s *Service) Jobs(ctx context.Context) ([]editor.JobSummary, error) {
	return withRunner(ctx, s, func(r *Runner) ([]editor.JobSummary, error) { return r.Summaries(ctx) })
}

// Apply brings a job's commits into the user's folder.
func (s *Service) Apply(ctx context.Context, p editor.ApplyJobParams) (editor.ApplyWorkflowResult, error) {
	return withRunner(ctx, s, func(r *Runner) (editor.ApplyWorkflowResult, error) {
		res, err := r.Apply(ctx, p.JobID, workflow.ApplyMode(p.Mode), s.cfg.Document)
		return res, run.Invalid(err)
	})
}

// withRunner calls fn with the session's runner, made on first use; an
// error making it is returned as it is.
func withRunner[T any](ctx context.Context, s *Service, fn func(r *Runner) (T, error)) (T, error) {
	r, err := s.open(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	return fn(r)
}

// background runs a job for the session's lifetime and tells the user
// how the run ended.
func (s *Service) background(ctx context.Context, j store.Job, run func(ctx context.Context) (store.Job, error)) error {
	return s.cfg.Go(ctx, func(ctx context.Context) {
		end, err := run(ctx)
		if end.ID == "" {
			end = j
		}
		msgCtx := context.WithoutCancel(ctx)
		typ, msg := editor.Info, ""
		switch {
		case end.Status == store.JobDone:
			msg = fmt.Sprintf("Autarch: job %s %s; apply it from the side panel.", end.Name, end.StatusReason)
		case errors.Is(err, ErrWaiting):
			msg = fmt.Sprintf("Autarch: job %s waits for your review (side panel).", end.Name)
		case err != nil && ctx.Err() != nil:
			s.cfg.Log.Info("job run ended with the session", "job", end.ID, "err", err)
			return
		case err != nil:
			typ, msg = editor.Error, fmt.Sprintf("Autarch: job %s failed: %v — resume it from the side panel once the cause is fixed.", end.Name, err)
		case end.Status == store.JobStopped:
			typ, msg = editor.Warning, fmt.Sprintf("Autarch: job %s stopped: %s — resume it from the side panel.", end.Name, strings.TrimSpace(end.StatusReason))
		default:
			return
		}
		if s.ui == nil {
			return
		}
		if err := s.ui.ShowMessage(msgCtx, typ, msg); err != nil {
			s.cfg.Log.Debug("message not delivered", "err", err)
		}
	})
}
