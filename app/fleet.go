package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent/job"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/fleet"
)

// ErrNoFleet: the editor has no fleet configured.
var ErrNoFleet = errors.New("no fleet is configured: set autarch.fleet.natsUrl to the fleet's NATS URL (nats://host:4222), then run in the background again")

// fleetConnectTimeout bounds reaching the fleet's NATS, so that an
// unreachable fleet does not hold up the list of runs.
const fleetConnectTimeout = 10 * time.Second

// fleetRetryAfter is how long a failed connection to the fleet is not
// tried again (each list of runs would wait for it otherwise).
const fleetRetryAfter = 30 * time.Second

// contextLines is how many of a fleet run's last output lines are kept
// to show beside its question (a card, a diff).
const contextLines = 40

// fleetState is the session's share of the fleet: its settings, the
// connection made on first use with them, and the runs it follows (their
// question waiting on an answer, the lines before it).
type fleetState struct {
	mu       sync.Mutex
	settings editor.FleetSettings
	f        *fleet.Fleet
	live     context.Context    // ends with f's connection
	stop     context.CancelFunc // closes f's connection and its follows
	followed map[string]*fleetView
	// failed is when connecting last failed, with err; reset by SetFleet.
	failed time.Time
	err    error
}

// fleetView is what the session knows of a run it follows.
type fleetView struct {
	prompt string
	lines  []string
}

// SetFleet sets the fleet "Run in Background" submits to; a change closes
// the connection of the previous settings (the next use reconnects).
func (s *Session) SetFleet(st editor.FleetSettings) {
	fs := &s.fleet
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.settings == st {
		return
	}
	fs.settings = st
	if fs.stop != nil {
		fs.stop()
	}
	fs.f, fs.live, fs.stop, fs.followed = nil, nil, nil, nil
	fs.failed, fs.err = time.Time{}, nil
}

// fleetConn is the fleet's connection, made on first use.
func (s *Session) fleetConn(ctx context.Context) (*fleet.Fleet, error) {
	fs := &s.fleet
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.f != nil {
		return fs.f, nil
	}
	if fs.settings.NatsURL == "" {
		return nil, ErrNoFleet
	}
	if fs.err != nil && time.Since(fs.failed) < fleetRetryAfter {
		return nil, fs.err
	}
	cctx, cancel := context.WithTimeout(ctx, fleetConnectTimeout)
	defer cancel()
	f, closeConn, err := fleet.Connect(cctx, fleet.ConnOptions{URL: fs.settings.NatsURL, CredsFile: fs.settings.Creds, Logger: s.cfg.Log}, fleet.Options{})
	if err != nil {
		fs.failed, fs.err = time.Now(), fmt.Errorf("reaching the fleet at %s: %w; check autarch.fleet.natsUrl and that the server is up", fs.settings.NatsURL, err)
		return nil, fs.err
	}
	live, stop := context.WithCancel(context.Background())
	if err := s.Go(ctx, func(ctx context.Context) {
		select {
		case <-ctx.Done():
		case <-live.Done():
		}
		closeConn()
	}); err != nil {
		stop()
		closeConn()
		return nil, err
	}
	fs.f, fs.live, fs.stop, fs.followed = f, live, stop, map[string]*fleetView{}
	return f, nil
}

// fleetProject is the fleet's connection (fleetConn) and the git URL the
// fleet's workers clone this project from.
func (s *Session) fleetProject(ctx context.Context) (*fleet.Fleet, string, error) {
	f, err := s.fleetConn(ctx)
	if err != nil {
		return nil, "", err
	}
	s.fleet.mu.Lock()
	repo := s.fleet.settings.Repo
	s.fleet.mu.Unlock()
	if repo == "" {
		if repo, err = s.Origin(ctx); err != nil {
			return nil, "", err
		}
	}
	return f, repo, nil
}

// SubmitFleet queues a run of this project for the fleet's workers, as
// autarch submit does, and follows it: its questions wait in the list of
// runs until AnswerFleet.
func (s *Session) SubmitFleet(ctx context.Context, p editor.FleetSubmitParams) (editor.FleetRunRef, error) {
	task := strings.TrimSpace(p.Task)
	if task == "" {
		return editor.FleetRunRef{}, errors.New("the run needs a task: say what it should do")
	}
	kind, err := fleet.ParseKind(p.Kind)
	if err == nil && p.Mode != "" {
		_, err = job.ParseMode(p.Mode)
	}
	if err == nil && p.Path != "" && p.Path != "auto" {
		_, err = workflow.ParsePath(p.Path)
	}
	if err != nil {
		return editor.FleetRunRef{}, err
	}
	labels, err := fleet.ParseLabels(strings.Join(p.Labels, ","))
	if err != nil {
		return editor.FleetRunRef{}, err
	}
	f, repo, err := s.fleetProject(ctx)
	if err != nil {
		return editor.FleetRunRef{}, err
	}
	digest, err := s.TrustedDigest(ctx)
	if err != nil {
		return editor.FleetRunRef{}, err
	}
	path := p.Path
	if path == "" {
		path = "auto"
	}
	r, err := f.Submit(ctx, fleet.Spec{Kind: kind, Repo: repo, Base: p.Base, Mode: p.Mode, Path: path, Labels: labels, Name: p.Name, Task: task,
		Submitter: fleet.Submitter(), ConfigDigest: digest})
	if err != nil {
		return editor.FleetRunRef{}, err
	}
	s.follow(ctx, f, r.ID)
	return editor.FleetRunRef{ID: r.ID}, nil
}

// follow follows a fleet run's events (once per run and connection):
// each goes to the session's stream as a FleetEvent, and its question is
// kept for the list of runs until it is answered.
func (s *Session) follow(ctx context.Context, f *fleet.Fleet, id string) {
	fs := &s.fleet
	fs.mu.Lock()
	if fs.f != f || fs.followed[id] != nil {
		fs.mu.Unlock()
		return
	}
	view := &fleetView{}
	fs.followed[id] = view
	live := fs.live
	fs.mu.Unlock()
	err := s.Go(ctx, func(ctx context.Context) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		context.AfterFunc(live, cancel)
		err := f.Follow(ctx, id, func(ev kernel.Event) bool {
			fe := s.fleetSaw(view, ev)
			if fe.Kind != "" {
				s.emit(Event{Event: ev, Fleet: &fe})
			}
			return ev.Kind != kernel.EventStatus || (ev.Status != kernel.Done && ev.Status != kernel.Failed && ev.Status != kernel.Stopped)
		})
		if err != nil && ctx.Err() == nil {
			s.cfg.Log.Warn("fleet: following a run", "run", id, "err", err)
		}
	})
	if err != nil {
		s.cfg.Log.Warn("fleet: following a run", "run", id, "err", err)
	}
}

// fleetSaw records a followed run's event in its view and says it as a
// FleetEvent (Kind "" for one the editor need not hear of).
func (s *Session) fleetSaw(v *fleetView, ev kernel.Event) editor.FleetEvent {
	s.fleet.mu.Lock()
	defer s.fleet.mu.Unlock()
	fe := editor.FleetEvent{ID: ev.Run.ID}
	switch ev.Kind {
	case kernel.EventText: // a prompt without its newline: the run waits on an answer
		v.prompt += ev.Text
		fe.Kind, fe.Text = "prompt", strings.TrimSpace(v.prompt)
	case kernel.EventMessage:
		if v.prompt != "" { // the run went on: the prompt was answered (here or elsewhere)
			v.lines = append(v.lines, v.prompt)
			v.prompt = ""
		}
		v.lines = append(v.lines, ev.Text)
		if len(v.lines) > contextLines {
			v.lines = v.lines[len(v.lines)-contextLines:]
		}
		fe.Kind, fe.Text = "message", ev.Text
	case kernel.EventStatus:
		v.prompt = ""
		fe.Kind, fe.Status, fe.Text = "status", string(ev.Status), ev.Text
	}
	return fe
}

// AnswerFleet answers the question a fleet run waits on with one line,
// as autarch submit --wait answers from its terminal.
func (s *Session) AnswerFleet(ctx context.Context, p editor.FleetAnswerParams) error {
	if err := fleet.CheckID(p.ID); err != nil {
		return err
	}
	f, err := s.fleetConn(ctx)
	if err != nil {
		return err
	}
	if err := f.Answer(p.ID, p.Answer); err != nil {
		return fmt.Errorf("answering fleet run %s: %w", p.ID, err)
	}
	s.fleet.mu.Lock()
	if v := s.fleet.followed[p.ID]; v != nil && v.prompt != "" {
		v.lines = append(v.lines, v.prompt+" "+p.Answer)
		v.prompt = ""
	}
	s.fleet.mu.Unlock()
	return nil
}

// ApplyFleet fetches a completed fleet run's branch from its remote and
// brings it into the user's folder as a local workflow's Apply does.
func (s *Session) ApplyFleet(ctx context.Context, p editor.FleetApplyParams) (editor.ApplyWorkflowResult, error) {
	if err := fleet.CheckID(p.ID); err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	f, repo, err := s.fleetProject(ctx)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	r, err := f.Get(ctx, p.ID)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	if r.Spec.Repo != repo { // its branch is fetched from its remote: only this project's
		return editor.ApplyWorkflowResult{}, fmt.Errorf("fleet run %s is not a run of this project (it works on %s, this project is %s): apply it in a checkout of its repository", p.ID, r.Spec.Repo, repo)
	}
	if r.State != fleet.Completed {
		return editor.ApplyWorkflowResult{}, fmt.Errorf("fleet run %s is %s: apply it once it completed", p.ID, strings.ToLower(string(r.State)))
	}
	return s.ApplyRemote(ctx, workflow.RemoteBranch{URL: r.Spec.Repo, Branch: r.Branch, Base: r.Spec.BaseCommit, Name: r.Spec.Name}, workflow.ApplyMode(p.Mode))
}

// fleetRuns are this project's runs on the fleet (none when no fleet is
// configured), with their worker and the question each waits on; the
// session follows those still going.
func (s *Session) fleetRuns(ctx context.Context) ([]editor.RunSummary, error) {
	s.fleet.mu.Lock()
	configured := s.fleet.settings.NatsURL != ""
	s.fleet.mu.Unlock()
	if !configured {
		return nil, nil
	}
	f, repo, err := s.fleetProject(ctx)
	if err != nil {
		return nil, err
	}
	runs, err := f.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []editor.RunSummary
	for _, r := range runs {
		if r.Spec.Repo != repo {
			continue
		}
		if !r.State.Ended() {
			s.follow(ctx, f, r.ID)
		}
		name := r.Spec.Name
		if name == "" {
			name = r.Branch
		}
		if name == "" {
			name = r.ID
		}
		sum := editor.RunSummary{Kind: string(r.Ref().Kind), ID: r.ID, Name: name, Task: r.Spec.Task, Status: string(r.State), StatusReason: r.Reason,
			Branch: r.Branch, UpdatedAt: r.Updated.UTC().Format(time.RFC3339), Fleet: true, Worker: r.Worker}
		s.fleet.mu.Lock()
		if v := s.fleet.followed[r.ID]; v != nil && v.prompt != "" {
			sum.Prompt, sum.Context = strings.TrimSpace(v.prompt), append([]string(nil), v.lines...)
		}
		s.fleet.mu.Unlock()
		out = append(out, sum)
	}
	return out, nil
}
