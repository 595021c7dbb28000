package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// ServiceConfig wires the swarms of one application session.
type ServiceConfig struct {
	Repo         *git.Repo
	Model        agent.Model
	DefaultModel string
	// Connect opens the project's swarm engine, once, on first use.
	Connect func(ctx context.Context) (OpenEngine, error)
	// UI is the person: messages and the human arbiter's notices.
	UI editor.Client
	// Events receives what the swarms do, typed (nil: dropped).
	Events func(editor.SwarmEvent)
	// Go runs a swarm in the background for the session's lifetime.
	Go  func(ctx context.Context, fn func(ctx context.Context)) error
	Log *slog.Logger
	// Hooks are the project's hooks (trusted configuration only; nil:
	// none), run around the agents' tool calls (Config.Hooks).
	Hooks *tools.Hooks
	// Guardrails are the project's guardrails (Config.Guardrails).
	Guardrails *tools.Guardrails
}

// Service is the swarms of one application session: runs in the
// background, a human arbiter answering from the side panel (Decide),
// typed events to the session's sink. The application session (package
// app) holds one for every transport.
type Service struct {
	cfg   ServiceConfig
	inbox *Inbox

	mu      sync.Mutex
	o       *Orchestrator
	running kernel.Active // the swarms this session runs
}

// NewService makes the swarms of an application session.
func NewService(cfg ServiceConfig) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{cfg: cfg, inbox: NewInbox()}
}

// open returns the orchestrator, made on first use.
func (s *Service) open(ctx context.Context) (*Orchestrator, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.o == nil {
		o, err := s.connect(ctx)
		if err != nil {
			return nil, err
		}
		s.o = o
	}
	return s.o, nil
}

// connect makes the orchestrator over the project's NATS, closed with the
// session.
func (s *Service) connect(ctx context.Context) (*Orchestrator, error) {
	open, err := s.cfg.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("the swarm engine (NATS): %w", err)
	}
	o, err := New(Config{Repo: s.cfg.Repo, Open: open, Model: s.cfg.Model, DefaultModel: s.cfg.DefaultModel,
		Arbiter: s.arbiter, Events: s.notify, Hooks: s.cfg.Hooks, Guardrails: s.cfg.Guardrails})
	if err != nil {
		return nil, err
	}
	if err := s.cfg.Go(ctx, func(ctx context.Context) { <-ctx.Done(); o.Close() }); err != nil {
		return nil, err
	}
	return o, nil
}

// arbiter is the side panel's human, or an arbiter model.
func (s *Service) arbiter(name string) Arbiter {
	if name == "" || name == "human" {
		return s.inbox
	}
	return ModelArbiter{Model: s.cfg.Model, ModelName: name, Hooks: s.cfg.Hooks, Log: func(msg string) { s.cfg.Log.Warn("swarm arbiter", "msg", msg) }}
}

// notify forwards a swarm event to the sink, and tells the person what
// waits on them or was refused.
func (s *Service) notify(ev editor.SwarmEvent) {
	ctx := context.Background()
	kernel.Send(s.cfg.Events, ev)
	if ev.Kind == "awaiting" && (ev.Agent == "" || ev.Agent == "human") {
		msg := fmt.Sprintf("Autarch: swarm %s: %s — approve or reject them in the Swarm view (or Autarch: Decide Swarm Proposal).", ev.SwarmID, ev.Text)
		if err := s.cfg.UI.ShowMessage(ctx, editor.Info, msg); err != nil {
			s.cfg.Log.Debug("message not delivered", "err", err)
		}
	}
	if ev.Kind == "applied" && ev.Refused {
		msg := fmt.Sprintf("Autarch: swarm %s: the approved write of %s was refused: %s", ev.SwarmID, ev.Path, strings.TrimPrefix(ev.Text, refusedPrefix))
		if err := s.cfg.UI.ShowMessage(ctx, editor.Warning, msg); err != nil {
			s.cfg.Log.Debug("message not delivered", "err", err)
		}
	}
}

// Start starts a swarm in the background.
func (s *Service) Start(ctx context.Context, p editor.StartSwarmParams) (editor.SwarmRef, error) {
	agents, err := ParseAgents(p.Agents)
	if err != nil {
		return editor.SwarmRef{}, Invalid(err)
	}
	if p.ReadOnly && p.AllowWrite {
		return editor.SwarmRef{}, Invalid(errors.New("readOnly and allowWrite exclude each other: a proposal round writes nothing"))
	}
	o, err := s.open(ctx)
	if err != nil {
		return editor.SwarmRef{}, err
	}
	arb := strings.TrimSpace(p.Arbiter)
	if arb == "" {
		arb = "human"
	}
	st, err := o.Start(ctx, Options{Task: p.Task, Agents: agents, Rounds: p.Rounds, Arbiter: arb, AllowWrite: p.AllowWrite, ReadOnly: p.ReadOnly})
	if err != nil {
		return editor.SwarmRef{}, Invalid(err)
	}
	return editor.SwarmRef{SwarmID: st.ID}, s.background(ctx, o, st.ID)
}

// Resume resumes a stopped or failed swarm in the background.
func (s *Service) Resume(ctx context.Context, ref editor.SwarmRef) (editor.SwarmRef, error) {
	o, err := s.open(ctx)
	if err != nil {
		return ref, err
	}
	st, err := o.Load(ref.SwarmID)
	if err != nil {
		return ref, Invalid(err)
	}
	if st.Status == StatusDone {
		return ref, Invalid(fmt.Errorf("swarm %s is done: start a new one", st.ID))
	}
	return ref, s.background(ctx, o, st.ID)
}

// errStopped is why a swarm the user stopped was cancelled.
var errStopped = errors.New("stopped by the user")

// Stop stops a swarm running in this session; it can be resumed.
func (s *Service) Stop(ctx context.Context, ref editor.SwarmRef) (struct{}, error) {
	if !s.running.Cancel(ref.SwarmID, errStopped) {
		return struct{}{}, Invalid(fmt.Errorf("swarm %q is not running in this editor session", ref.SwarmID))
	}
	return struct{}{}, nil
}

// Decide answers one proposal awaiting the human arbiter.
func (s *Service) Decide(ctx context.Context, p editor.SwarmDecisionParams) (struct{}, error) {
	if p.ProposalID == "" {
		return struct{}{}, Invalid(errors.New("no proposalId: name the proposal to decide"))
	}
	if err := s.inbox.Answer(p.ProposalID, p.Action, p.Notes); err != nil {
		return struct{}{}, Invalid(err)
	}
	return struct{}{}, nil
}

// Swarms lists the repository's swarms, most recently updated first; the
// running ones with their shared context and queue.
func (s *Service) Swarms(ctx context.Context) ([]editor.SwarmSnapshot, error) {
	list, err := List(s.cfg.Repo.StateDir())
	if err != nil {
		return nil, err
	}
	out := []editor.SwarmSnapshot{}
	for _, st := range list {
		snap := Summary(st)
		if st.Status == StatusRunning {
			if o, err := s.open(ctx); err == nil {
				if full, err := o.Snapshot(ctx, st.ID); err == nil {
					snap = full
				}
			}
		}
		out = append(out, snap)
	}
	return out, nil
}

// background runs the swarm id until it ends, is stopped or the session ends.
func (s *Service) background(ctx context.Context, o *Orchestrator, id string) error {
	// Stop cancels stopCtx (through the run kernel's Active); the run's
	// context follows it.
	stopCtx, stop := context.WithCancelCause(context.Background())
	remove, ok := s.running.Add(id, stop)
	if !ok {
		stop(nil)
		return Invalid(fmt.Errorf("swarm %s is already running", id))
	}
	err := s.cfg.Go(ctx, func(ctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		unwatch := context.AfterFunc(stopCtx, cancel)
		defer func() {
			unwatch()
			cancel()
			remove()
			stop(nil)
		}()
		st, err := o.Run(ctx, id)
		msgCtx := context.WithoutCancel(ctx)
		typ, msg := editor.Info, ""
		switch {
		case st != nil && st.Status == StatusDone && st.Reason != "":
			typ, msg = editor.Warning, fmt.Sprintf("Autarch: swarm %s is done, but %s.", id, st.Reason)
		case st != nil && st.Status == StatusDone:
			msg = fmt.Sprintf("Autarch: swarm %s is done: %d commit(s) on %s.", id, len(st.Commits), st.Branch)
		case st != nil && st.Status == StatusStopped:
			typ, msg = editor.Warning, fmt.Sprintf("Autarch: swarm %s stopped — resume it from the side panel.", id)
		case err != nil:
			typ, msg = editor.Error, fmt.Sprintf("Autarch: swarm %s failed: %v — resume it from the side panel once the cause is fixed.", id, err)
		default:
			return
		}
		if err := s.cfg.UI.ShowMessage(msgCtx, typ, msg); err != nil {
			s.cfg.Log.Debug("message not delivered", "err", err)
		}
	})
	if err != nil {
		remove()
		stop(nil)
	}
	return err
}

// InvalidError is a request the user can fix (the server answers it as
// invalid params).
type InvalidError struct{ error }

// Invalid marks err as the user's to fix.
func Invalid(err error) error { return InvalidError{err} }

// Invalid reports the error is the request's.
func (InvalidError) Invalid() bool { return true }

func (e InvalidError) Unwrap() error { return e.error }
