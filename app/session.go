// Package app is the application session: the one object every transport
// (the LSP server, ACP, the CLI's editor verbs) talks to. It holds the
// project's runs of every kind — workflows (agent/workflow), jobs
// (agent/job) and swarms (swarm/orchestrate) — with one event stream of
// typed events (Event: the run kernel's envelope and the kind's own
// event), one list of runs (Runs) and one activity view (Activity). The
// domain below it emits typed events only; turning them into a protocol's
// notifications is the transport's business.
package app

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/autarch-dev/autarch/agent/job"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
	"github.com/autarch-dev/autarch/tools"
)

// Config configures a Session.
type Config struct {
	// Editor reaches the person: messages, approvals, questions,
	// progress, edits and diagnostics.
	Editor editor.Client
	// Wire completes the project's wiring with what cmd/autarch picks
	// (model, settings, confinement, mode, budget) before it opens.
	Wire func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error
	// Search makes the code search of a folder.
	Search func(folder string) workflow.CodeSearch
	// Document is the text of a document the user has open (path), if any.
	Document func(path string) (string, bool)
	// Diagnostics are the editor's diagnostics (nil: the project's checker).
	Diagnostics tools.Diagnostics
	// Events is the session's one event stream (nil: dropped).
	Events func(Event)
	// Deltas receives the pieces of a job agent's message as the model
	// streams them, for clients that show text as it is written (ACP);
	// Events never carries them (nil: dropped).
	Deltas func(Event)
	Log    *slog.Logger
}

// Session is the application session of one editor (or ACP client) over
// its first workspace folder. The workflow calls are its Service's
// (Start, Answer, Review, Search, Apply, …); the job and swarm calls are
// named for their kind (StartJob, StartSwarm, …).
type Session struct {
	*workflow.Service

	cfg  Config
	jobs *job.Service

	mu     sync.Mutex
	swarms *orchestrate.Service

	fleet fleetState
}

// New makes a Session; nothing is opened until first use.
func New(cfg Config) *Session {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &Session{cfg: cfg}
	s.Service = workflow.NewService(workflow.ServiceConfig{Editor: cfg.Editor, Wire: cfg.Wire, Search: cfg.Search, Document: cfg.Document,
		Diagnostics: cfg.Diagnostics, Log: cfg.Log, Events: s.workflowEvent})
	s.jobs = job.NewService(job.ServiceConfig{Open: s.jobConfig, Go: s.Go, Document: cfg.Document, Events: s.jobEvent, Log: cfg.Log})
	return s
}

// JobConfig is the jobs' share of a project's wiring: its store,
// repository, model, settings, editor, hooks, guardrails and confinement,
// and the workflows' way of applying a branch.
func JobConfig(e *workflow.Engine) job.Config {
	c := e.Config()
	return job.Config{Store: c.Store, Repo: c.Repo, StateDir: c.StateDir, Editor: c.Editor, Model: c.Model, Settings: c.Settings,
		Mode: c.Mode, Commands: c.Commands, Hooks: c.Hooks, Guardrails: c.Guardrails, Egress: c.Egress, Repository: c.Repository,
		Search: c.Search, Web: c.Web, Tools: c.Tools, Meter: c.Meter, Log: c.Log, Apply: e.Apply}
}

// jobConfig opens the project and wires the session's jobs over it.
func (s *Session) jobConfig(ctx context.Context) (job.Config, error) {
	e, err := s.Engine(ctx)
	if err != nil {
		return job.Config{}, err
	}
	cfg := JobConfig(e)
	cfg.Deltas = func(ev editor.JobEvent) { kernel.Send(s.cfg.Deltas, jobEvent(ev)) }
	return cfg, nil
}

// JobRunner is the session's job runner (for transports that drive a job
// within a request, as ACP's prompt turns do).
func (s *Session) JobRunner(ctx context.Context) (*job.Runner, error) { return s.jobs.Runner(ctx) }

// StartJob starts a job and runs it in the background.
func (s *Session) StartJob(ctx context.Context, p editor.StartJobParams) (editor.JobRef, error) {
	return s.jobs.Start(ctx, p)
}

// ResumeJob resumes a stopped, failed or waiting job in the background.
func (s *Session) ResumeJob(ctx context.Context, ref editor.JobRef) (editor.JobRef, error) {
	return s.jobs.Resume(ctx, ref)
}

// StopJob stops a running or waiting job.
func (s *Session) StopJob(ctx context.Context, ref editor.JobRef) error { return s.jobs.Stop(ctx, ref) }

// AnswerEscalation answers a waiting job's escalation and resumes it.
func (s *Session) AnswerEscalation(ctx context.Context, p editor.AnswerEscalationParams) error {
	return s.jobs.AnswerEscalation(ctx, p)
}

// ApplyJob brings a job's commits into the user's folder.
func (s *Session) ApplyJob(ctx context.Context, p editor.ApplyJobParams) (editor.ApplyWorkflowResult, error) {
	return s.jobs.Apply(ctx, p)
}

// Jobs lists the jobs, most recently updated first.
func (s *Session) Jobs(ctx context.Context) ([]editor.JobSummary, error) { return s.jobs.Jobs(ctx) }

// swarmService is the session's swarms, made on first use over the
// project's repository, model and editor; the project's NATS connection
// lives as long as the session.
func (s *Session) swarmService(ctx context.Context) (*orchestrate.Service, error) {
	e, err := s.Engine(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.swarms == nil {
		cfg := e.Config()
		connect := func(ctx context.Context) (orchestrate.OpenEngine, error) {
			open, closeNATS, err := orchestrate.ConnectNATS(ctx, cfg.Repo.StateDir(), cfg.Repository.Swarm, s.cfg.Log)
			if err != nil {
				return nil, err
			}
			if err := s.Go(ctx, func(ctx context.Context) { <-ctx.Done(); closeNATS() }); err != nil {
				closeNATS()
				return nil, err
			}
			return open, nil
		}
		s.swarms = orchestrate.NewService(orchestrate.ServiceConfig{Repo: cfg.Repo, Model: cfg.Model, DefaultModel: cfg.Settings.Model,
			Connect: connect, UI: cfg.Editor, Events: s.swarmEvent, Go: s.Go, Log: s.cfg.Log, Hooks: cfg.Hooks, Guardrails: cfg.Guardrails, Tools: cfg.Tools})
	}
	return s.swarms, nil
}

// onSwarms calls fn on the session's swarms, made on first use.
func onSwarms[P, R any](ctx context.Context, s *Session, p P, fn func(*orchestrate.Service, context.Context, P) (R, error)) (R, error) {
	sw, err := s.swarmService(ctx)
	if err != nil {
		var zero R
		return zero, err
	}
	return fn(sw, ctx, p)
}

// StartSwarm starts a swarm in the background.
func (s *Session) StartSwarm(ctx context.Context, p editor.StartSwarmParams) (editor.SwarmRef, error) {
	return onSwarms(ctx, s, p, (*orchestrate.Service).Start)
}

// StopSwarm stops a swarm running in this session; it can be resumed.
func (s *Session) StopSwarm(ctx context.Context, ref editor.SwarmRef) (struct{}, error) {
	return onSwarms(ctx, s, ref, (*orchestrate.Service).Stop)
}

// ResumeSwarm resumes a stopped or failed swarm in the background.
func (s *Session) ResumeSwarm(ctx context.Context, ref editor.SwarmRef) (editor.SwarmRef, error) {
	return onSwarms(ctx, s, ref, (*orchestrate.Service).Resume)
}

// DecideSwarm answers one proposal awaiting the human arbiter.
func (s *Session) DecideSwarm(ctx context.Context, p editor.SwarmDecisionParams) (struct{}, error) {
	return onSwarms(ctx, s, p, (*orchestrate.Service).Decide)
}

// Swarms lists the repository's swarms, most recently updated first.
func (s *Session) Swarms(ctx context.Context) ([]editor.SwarmSnapshot, error) {
	return onSwarms(ctx, s, struct{}{}, func(sw *orchestrate.Service, ctx context.Context, _ struct{}) ([]editor.SwarmSnapshot, error) {
		return sw.Swarms(ctx)
	})
}

// Runs is the one list of the project's runs — workflows, jobs and
// swarms, each with its kind, and the fleet's runs of the project when a
// fleet is configured (SetFleet) — most recently updated first.
func (s *Session) Runs(ctx context.Context) ([]editor.RunSummary, error) {
	wfs, err := s.Workflows(ctx)
	if err != nil {
		return nil, err
	}
	jobs, err := s.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	swarms, err := s.Swarms(ctx)
	if err != nil {
		return nil, err
	}
	fleetRuns, err := s.fleetRuns(ctx)
	if err != nil { // the fleet's trouble hides none of the local runs
		s.cfg.Log.Warn("fleet runs are not listed", "err", err)
	}
	out := make([]editor.RunSummary, 0, len(wfs)+len(jobs)+len(swarms)+len(fleetRuns))
	out = append(out, fleetRuns...)
	for _, w := range wfs {
		out = append(out, editor.RunSummary{Kind: string(kernel.KindWorkflow), ID: w.ID, Name: w.Name, Task: w.Task, Status: w.Status,
			StatusReason: w.StatusReason, Branch: w.Branch, UpdatedAt: w.UpdatedAt})
	}
	for _, j := range jobs {
		out = append(out, editor.RunSummary{Kind: string(kernel.KindJob), ID: j.ID, Name: j.Name, Task: j.Task, Status: j.Status,
			StatusReason: j.StatusReason, Branch: j.Branch, UpdatedAt: j.UpdatedAt})
	}
	for _, sw := range swarms {
		out = append(out, editor.RunSummary{Kind: string(kernel.KindSwarm), ID: sw.ID, Name: sw.ID, Task: sw.Task, Status: sw.Status,
			StatusReason: sw.Reason, Branch: sw.Branch, UpdatedAt: sw.UpdatedAt})
	}
	// RFC 3339 times in UTC sort as strings; a stable sort keeps each
	// kind's own order among equal times.
	slices.SortStableFunc(out, func(a, b editor.RunSummary) int { return cmp.Compare(b.UpdatedAt, a.UpdatedAt) })
	return out, nil
}

// emit sends an event to the stream and its activity line to the editor's
// log.
func (s *Session) emit(ev Event) {
	kernel.Send(s.cfg.Events, ev)
	if line, ok := Activity(ev); ok && s.cfg.Editor != nil {
		if err := s.cfg.Editor.LogMessage(context.Background(), editor.Log, line); err != nil {
			s.cfg.Log.Debug("log message not delivered", "err", err)
		}
	}
}

func (s *Session) workflowEvent(ev editor.WorkflowEvent) { s.emit(workflowEvent(ev)) }
func (s *Session) jobEvent(ev editor.JobEvent)           { s.emit(jobEvent(ev)) }
func (s *Session) swarmEvent(ev editor.SwarmEvent)       { s.emit(swarmEvent(ev)) }
