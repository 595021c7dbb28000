package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// Session is the jobs of one editor session: the runner over the
// workflow session's engine (opened on first use), runs in the background
// for the session's lifetime, events sent to the editor as
// autarch/jobEvent notifications. Every job method of the server is one
// call on it.
type Session struct {
	ws       *workflow.Session
	document func(path string) (string, bool)
	log      *slog.Logger

	mu     sync.Mutex
	runner *Runner
	ui     editor.Client
}

// NewSession makes the jobs of a workflow session; document is the
// user's open copy of a file (absolute path), for applying as an edit.
func NewSession(ws *workflow.Session, document func(path string) (string, bool), log *slog.Logger) *Session {
	if log == nil {
		log = slog.Default()
	}
	if document == nil {
		document = func(string) (string, bool) { return "", false }
	}
	return &Session{ws: ws, document: document, log: log}
}

// open returns the runner, made over the session's engine on first use.
func (s *Session) open(ctx context.Context) (*Runner, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runner != nil {
		return s.runner, nil
	}
	e, err := s.ws.Engine(ctx)
	if err != nil {
		return nil, err
	}
	s.ui = e.Config().Editor
	r, err := New(Config{Engine: e, Events: s.notify})
	if err != nil {
		return nil, err
	}
	s.runner = r
	return r, nil
}

// notify forwards a job event to the editor: the side panel's event and,
// for tool calls, an activity line.
func (s *Session) notify(ev editor.JobEvent) {
	ctx := context.Background()
	if err := s.ui.Notify(ctx, editor.MethodJobEvent, ev); err != nil {
		s.log.Debug("job event not delivered", "err", err)
	}
	if ev.Kind == "tool_call" {
		if err := s.ui.LogMessage(ctx, editor.Log, fmt.Sprintf("[job %.8s] %s: %s", ev.JobID, ev.Tool, ev.Reason)); err != nil {
			s.log.Debug("log message not delivered", "err", err)
		}
	}
}

// Start starts a job and runs it in the background.
func (s *Session) Start(ctx context.Context, p editor.StartJobParams) (editor.JobRef, error) {
	r, err := s.open(ctx)
	if err != nil {
		return editor.JobRef{}, err
	}
	j, err := r.Start(ctx, Task{Text: p.Task, Mode: p.Mode, Base: p.Base})
	if err != nil {
		return editor.JobRef{}, invalid(err)
	}
	return editor.JobRef{JobID: j.ID, Name: j.Name}, s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.Run(ctx, j.ID) })
}

// Resume resumes a stopped, failed or waiting job in the background.
func (s *Session) Resume(ctx context.Context, ref editor.JobRef) (editor.JobRef, error) {
	r, err := s.open(ctx)
	if err != nil {
		return editor.JobRef{}, err
	}
	j, err := r.Find(ctx, ref.JobID)
	if err != nil {
		return editor.JobRef{}, invalid(err)
	}
	if j.Status == store.JobDone {
		return editor.JobRef{}, invalid(fmt.Errorf("job %s is done: apply it, or start a new job", j.Name))
	}
	return editor.JobRef{JobID: j.ID, Name: j.Name}, s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.ResumeWithGuidance(ctx, j.ID, ref.Guidance) })
}

// Stop stops a running or waiting job; its run ends within the stop poll
// and the user is told it can be resumed.
func (s *Session) Stop(ctx context.Context, ref editor.JobRef) error {
	r, err := s.open(ctx)
	if err != nil {
		return err
	}
	if strings.TrimSpace(ref.JobID) == "" {
		return invalid(errors.New("jobId is required: the id, an id prefix of at least 4 characters, or the name of a job (autarch/jobs lists them)"))
	}
	if err := r.Stop(ctx, ref.JobID, ""); err != nil {
		return invalid(err)
	}
	return nil
}

// AnswerEscalation answers a waiting job's escalation and resumes it in
// the background.
func (s *Session) AnswerEscalation(ctx context.Context, p editor.AnswerEscalationParams) error {
	r, err := s.open(ctx)
	if err != nil {
		return err
	}
	j, err := r.AnswerEscalation(ctx, p.JobID, p.EscalationID, p.Approved, p.Feedback)
	if err != nil {
		return invalid(err)
	}
	if j.Status == store.JobDone {
		return nil
	}
	return s.background(ctx, j, func(ctx context.Context) (store.Job, error) { return r.Resume(ctx, j.ID) })
}

// Jobs lists the jobs, most recently updated first.
func (s *Session) Jobs(ctx context.Context) ([]editor.JobSummary, error) {
	r, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	return r.Summaries(ctx)
}

// Apply brings a job's commits into the user's folder.
func (s *Session) Apply(ctx context.Context, p editor.ApplyJobParams) (editor.ApplyWorkflowResult, error) {
	r, err := s.open(ctx)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	res, err := r.Apply(ctx, p.JobID, workflow.ApplyMode(p.Mode), s.document)
	if err != nil {
		return res, invalid(err)
	}
	return res, nil
}

// background runs a job for the session's lifetime and tells the user
// how the run ended.
func (s *Session) background(ctx context.Context, j store.Job, run func(ctx context.Context) (store.Job, error)) error {
	return s.ws.Go(ctx, func(ctx context.Context) {
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
			s.log.Info("job run ended with the session", "job", end.ID, "err", err)
			return
		case err != nil:
			typ, msg = editor.Error, fmt.Sprintf("Autarch: job %s failed: %v — resume it from the side panel once the cause is fixed.", end.Name, err)
		case end.Status == store.JobStopped:
			typ, msg = editor.Warning, fmt.Sprintf("Autarch: job %s stopped: %s — resume it from the side panel.", end.Name, strings.TrimSpace(end.StatusReason))
		default:
			return
		}
		if err := s.ui.ShowMessage(msgCtx, typ, msg); err != nil {
			s.log.Debug("message not delivered", "err", err)
		}
	})
}

// invalidError is a request the user can fix (the server answers it as
// invalid params).
type invalidError struct{ error }

func (invalidError) Invalid() bool   { return true }
func (e invalidError) Unwrap() error { return e.error }
func invalid(err error) error        { return invalidError{err} }
