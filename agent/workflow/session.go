package workflow

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// CodeSearch is the code index of a session's folder (codesearch.Search).
type CodeSearch interface {
	tools.Searcher
	// Query waits for the index and searches it.
	Query(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, error)
	// Reindex rebuilds the index in the background.
	Reindex()
	// Changed re-indexes files from disk (absolute paths).
	Changed(paths ...string)
	// Edited indexes an edited buffer's text (absolute path).
	Edited(path, text string)
	// Scopes is the search of the folder and of each pulse worktree.
	Scopes(repo *git.Repo) func(dir string) tools.Searcher
	// Close stops background indexing.
	Close()
}

// ServiceConfig configures a Service.
type ServiceConfig struct {
	// Editor reaches the user: messages, approvals, progress, edits,
	// diagnostics and the side panel's events.
	Editor editor.Client
	// Wire completes an engine's configuration with what cmd/autarch
	// picks (model, settings, confinement, mode, budget) before the engine
	// opens; the CLI wires its engines with the same function.
	Wire func(ctx context.Context, p *Project, cfg *Config) error
	// Search makes the code search of a folder.
	Search func(folder string) CodeSearch
	// Document is the text of a document the user has open (path), if any.
	Document func(path string) (string, bool)
	// Diagnostics are the editor's diagnostics (nil: the project's checker).
	Diagnostics tools.Diagnostics
	// Events receives the workflows' events, typed (nil: dropped): the
	// application session turns them into its one event stream, and a
	// transport into its protocol's notifications.
	Events func(Event)
	Log    *slog.Logger
}

// Service is the workflows of one editor session over its first workspace
// folder: the engine opened on first use, runs in the background bounded by
// the session, progress per workflow, the latest review shown as
// diagnostics and re-anchored as files change, and the code search. The
// application session (package app) is the one object transports talk
// to; it holds a Service for its workflows.
type Service struct {
	cfg ServiceConfig

	openMu sync.Mutex // serialises opening the engine

	mu      sync.Mutex
	folders []string
	engine  *Engine
	project *Project
	search  CodeSearch
	closed  bool
	runs    run.Group // the session's background work

	progMu   sync.Mutex
	progress map[string]*workProgress // by workflow id, or workflow id/pulse id
	planned  sync.Map                 // stored pulse id → the plan's pulse id

	review reviewDiagnostics
}

// NewService makes a Service; nothing is opened until first use.
func NewService(cfg ServiceConfig) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Document == nil {
		cfg.Document = func(string) (string, bool) { return "", false }
	}
	s := &Service{cfg: cfg, progress: map[string]*workProgress{}}
	s.review.s = s
	return s
}

// SetFolders records the workspace folders; the first one is the project.
func (s *Service) SetFolders(folders []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.folders = slices.Clone(folders)
}

func (s *Service) folder() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.folders) == 0 {
		return "", invalid("no workspace folder is open: open a folder that is a git repository")
	}
	return s.folders[0], nil
}

// Close cancels the session's runs and waits at most wait for them to
// record how they ended (each step is durable in the store as it
// happens), then closes the engine, the store and the code search.
func (s *Service) Close(wait time.Duration) {
	s.mu.Lock()
	s.closed = true
	s.runs.Cancel()
	s.mu.Unlock()
	s.review.stop()
	if !s.runs.Wait(wait) {
		s.cfg.Log.Warn("workflow runs still finishing at exit")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.engine != nil {
		s.engine.Close()
	}
	if s.project != nil {
		if err := s.project.Close(); err != nil {
			s.cfg.Log.Warn("closing the workflow store", "err", err)
		}
	}
	if s.search != nil {
		s.search.Close()
	}
}

// goRun runs fn in the background for the session's lifetime (Close
// cancels it); ctx's values are kept, not its cancellation.
func (s *Service) goRun(ctx context.Context, fn func(ctx context.Context)) error {
	return s.runs.Go(ctx, fn)
}

// Engine is the session's engine, opened over the first workspace folder
// on first use.
func (s *Service) Engine(ctx context.Context) (*Engine, error) { return s.open(ctx) }

// Go runs fn in the background for the session's lifetime (Close cancels
// it and waits for it); ctx's values are kept, not its cancellation.
func (s *Service) Go(ctx context.Context, fn func(ctx context.Context)) error {
	return s.goRun(ctx, fn)
}

// codeSearch is the folder's code search, made on first use (the folder
// need not be a git repository).
func (s *Service) codeSearch() (CodeSearch, error) {
	folder, err := s.folder()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.search == nil {
		if s.cfg.Search == nil {
			return nil, errors.New("code search is not available")
		}
		s.search = s.cfg.Search(folder)
	}
	return s.search, nil
}

// open returns the engine, opening it over the first workspace folder.
func (s *Service) open(ctx context.Context) (*Engine, error) {
	s.mu.Lock()
	e := s.engine
	s.mu.Unlock()
	if e != nil {
		return e, nil
	}
	folder, err := s.folder()
	if err != nil {
		return nil, err
	}
	search, err := s.codeSearch()
	if err != nil {
		return nil, err
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	s.mu.Lock()
	e, closed := s.engine, s.closed
	s.mu.Unlock()
	if e != nil {
		return e, nil
	}
	if closed {
		return nil, errors.New("the session is closing")
	}
	p, err := OpenProject(ctx, folder, nil)
	if err != nil {
		return nil, err
	}
	cfg := Config{Editor: s.cfg.Editor, Search: search.Scopes(p.Repo), Diagnostics: s.cfg.Diagnostics,
		Log: s.cfg.Log.With("component", "workflow"), Events: s.onEvent}
	if s.cfg.Wire != nil {
		if err := s.cfg.Wire(ctx, p, &cfg); err != nil {
			p.Close()
			return nil, err
		}
	}
	e, err = p.Engine(ctx, cfg)
	if e == nil {
		p.Close()
		return nil, err
	}
	if err != nil {
		s.cfg.Log.Warn("recover interrupted workflows", "err", err)
	}
	s.mu.Lock()
	s.engine, s.project = e, p
	s.mu.Unlock()
	if p.Config.Untrusted() != "" {
		if err := s.goRun(ctx, func(ctx context.Context) { s.askTrust(ctx, p) }); err != nil {
			s.cfg.Log.Warn("trust not asked", "err", err)
		}
	}
	return e, nil
}

// askTrust asks the user whether to trust the repository's configuration
// (hooks run only from trusted content); until then it is ignored.
func (s *Service) askTrust(ctx context.Context, p *Project) {
	var detail strings.Builder
	for _, f := range p.Config.Config.Files {
		fmt.Fprintf(&detail, "%s:\n%s\n", f.Name, f.Data)
	}
	ui := s.cfg.Editor
	v, err := ui.Approve(ctx, editor.Approval{Kind: "trust",
		Title:  "Trust this repository's configuration? Its hooks run commands on your machine.",
		Detail: p.Config.Untrusted() + "\n\n" + detail.String()})
	if err != nil || v.Decision != editor.DecisionApprove && v.Decision != editor.DecisionAlwaysAllow {
		s.cfg.Log.Warn("repository configuration not trusted: ignored", "files", p.Config.Config.Names(), "err", err)
		return
	}
	if err := p.Trust(); err != nil {
		s.tell(ctx, editor.Warning, "Autarch: the configuration was not trusted: "+err.Error())
		return
	}
	s.tell(ctx, editor.Info, "Autarch: this repository's hooks are trusted and now run.")
}

// tell shows a message, logging when it cannot be delivered.
func (s *Service) tell(ctx context.Context, typ editor.MessageType, msg string) {
	if err := s.cfg.Editor.ShowMessage(ctx, typ, msg); err != nil {
		s.cfg.Log.Debug("message not delivered", "err", err, "message", msg)
	}
}

// background runs a workflow step (Run, Resume) for the session's
// lifetime; how it ended is reported to the user.
func (s *Service) background(ctx context.Context, name string, fn func(ctx context.Context) (store.Workflow, error)) error {
	return s.goRun(ctx, func(ctx context.Context) {
		wf, err := fn(ctx)
		s.endProgress(ctx, wf.ID, "")
		msgCtx := context.WithoutCancel(ctx)
		var h *Halt
		switch {
		case err == nil && wf.Status == store.WorkflowCompleted:
			var review *editor.ReviewView
			if e, err := s.open(msgCtx); err == nil {
				if d, err := e.Detail(msgCtx, wf.ID); err == nil {
					review = d.Review
				}
			}
			typ, msg := completedMessage(wf, review)
			s.tell(msgCtx, typ, msg)
		case errors.Is(err, ErrWaiting):
			s.tell(msgCtx, editor.Info, fmt.Sprintf("Autarch: workflow %s waits for your answer (side panel).", wf.Name))
		case errors.As(err, &h):
			s.tell(msgCtx, editor.Warning, fmt.Sprintf("Autarch: workflow %s halted: %s", wf.Name, h.Error()))
		case err != nil && ctx.Err() != nil:
			s.cfg.Log.Info("workflow run ended with the session", "workflow", name, "err", err)
		case err != nil:
			s.cfg.Log.Error("workflow run failed", "workflow", name, "err", err)
			s.tell(msgCtx, editor.Error, fmt.Sprintf("Autarch: workflow %s failed: %v", name, err))
		}
	})
}

// completedMessage tells how a completed workflow ended: what its review
// recommends decides whether the branch is ready to apply.
func completedMessage(wf store.Workflow, r *editor.ReviewView) (editor.MessageType, string) {
	if r == nil {
		return editor.Info, fmt.Sprintf("Autarch: workflow %s completed; branch %s is ready to apply.", wf.Name, wf.WorkflowBranch)
	}
	why := ""
	if sum := strings.TrimSpace(strings.SplitN(r.Summary, "\n", 2)[0]); sum != "" {
		why = " (" + sum + ")"
	}
	switch r.Recommendation {
	case "reject":
		return editor.Warning, fmt.Sprintf("Autarch: workflow %s completed, but its review recommends rejecting it%s: read the review in the side panel before applying branch %s, or start a new workflow with its comments.", wf.Name, why, wf.WorkflowBranch)
	case "manual_review":
		return editor.Info, fmt.Sprintf("Autarch: workflow %s completed; its review asks for a manual review%s: read the comments in the side panel before applying branch %s.", wf.Name, why, wf.WorkflowBranch)
	}
	return editor.Info, fmt.Sprintf("Autarch: workflow %s completed and its review recommends approving it; branch %s is ready to apply.", wf.Name, wf.WorkflowBranch)
}

// Start starts a workflow and runs it in the background.
func (s *Service) Start(ctx context.Context, p editor.NewWorkflowParams) (editor.WorkflowRef, error) {
	if p.DryRun {
		return s.startDryRun(ctx, p)
	}
	e, err := s.open(ctx)
	if err != nil {
		return editor.WorkflowRef{}, err
	}
	wf, err := e.Start(ctx, Task{Text: p.Task, Name: p.Name, Path: Path(p.Path), Parallel: p.Parallel})
	if err != nil {
		return editor.WorkflowRef{}, invalid("%w", err)
	}
	err = s.background(ctx, wf.Name, func(ctx context.Context) (store.Workflow, error) { return e.Run(ctx, wf.ID) })
	return editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name}, err
}

// Discuss sends a message to the discussion agent; its answer arrives as
// an event.
func (s *Service) Discuss(ctx context.Context, p editor.DiscussParams) error {
	if strings.TrimSpace(p.Message) == "" {
		return invalid("the message is empty: ask something about the code")
	}
	e, err := s.open(ctx)
	if err != nil {
		return err
	}
	return s.goRun(ctx, func(ctx context.Context) {
		if _, err := e.Discuss(ctx, p.Message); err != nil && ctx.Err() == nil {
			s.tell(context.WithoutCancel(ctx), editor.Error, "Autarch: the discussion failed: "+err.Error())
		}
	})
}

// find opens the engine and the workflow a reference names (id or name).
func (s *Service) find(ctx context.Context, ref editor.WorkflowRef) (*Engine, store.Workflow, error) {
	id := ref.WorkflowID
	if id == "" {
		id = ref.Name
	}
	if id == "" {
		return nil, store.Workflow{}, invalid("name the workflow: {\"workflowId\": ...}")
	}
	e, err := s.open(ctx)
	if err != nil {
		return nil, store.Workflow{}, err
	}
	wf, err := e.Find(ctx, id)
	if err != nil {
		return nil, store.Workflow{}, invalid("%w", err)
	}
	return e, wf, nil
}

// Stop stops a workflow.
func (s *Service) Stop(ctx context.Context, ref editor.WorkflowRef) error {
	e, wf, err := s.find(ctx, ref)
	if err != nil {
		return err
	}
	return e.Stop(ctx, wf.ID, "stopped by the user")
}

// Resume resumes a stopped, halted or waiting workflow in the background.
func (s *Service) Resume(ctx context.Context, ref editor.WorkflowRef) (editor.WorkflowRef, error) {
	e, wf, err := s.find(ctx, ref)
	if err != nil {
		return editor.WorkflowRef{}, err
	}
	if wf.Status == store.WorkflowCompleted || wf.Status == store.WorkflowAbandoned {
		return editor.WorkflowRef{}, invalid("workflow %s is %s and cannot be resumed", wf.Name, wf.Status)
	}
	err = s.background(ctx, wf.Name, func(ctx context.Context) (store.Workflow, error) { return e.Resume(ctx, wf.ID) })
	return editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name}, err
}

// Answer answers a pending question or decides a pending card, then
// resumes the workflow in the background.
func (s *Service) Answer(ctx context.Context, p editor.AnswerParams) error {
	e, err := s.open(ctx)
	if err != nil {
		return err
	}
	if p.Verdict != nil {
		err = e.DecidePending(ctx, p.WorkflowID, p.PendingID, *p.Verdict)
	} else {
		err = e.AnswerPending(ctx, p.WorkflowID, p.PendingID, p.Answers)
	}
	if err != nil {
		return invalid("%w", err)
	}
	return s.background(ctx, p.WorkflowID, func(ctx context.Context) (store.Workflow, error) { return e.Resume(ctx, p.WorkflowID) })
}

// Review reviews the current branch against a base and shows the comments
// as diagnostics; cancelling ctx stops the review.
func (s *Service) Review(ctx context.Context, p editor.ReviewBranchParams) (editor.ReviewView, error) {
	e, err := s.open(ctx)
	if err != nil {
		return editor.ReviewView{}, err
	}
	res, err := e.Review(ctx, ReviewRequest{Base: p.Base})
	if err != nil {
		return editor.ReviewView{}, err
	}
	v, err := e.ReviewView(ctx, res.Card)
	if err != nil {
		return editor.ReviewView{}, err
	}
	s.review.publish(ctx, &v)
	return v, nil
}

// Search queries the code index, waiting for it to be built.
func (s *Service) Search(ctx context.Context, p editor.SearchParams) ([]editor.SearchHit, error) {
	if strings.TrimSpace(p.Query) == "" {
		return nil, invalid("the query is empty")
	}
	if p.MaxResults <= 0 || p.MaxResults > 100 {
		p.MaxResults = 20
	}
	cs, err := s.codeSearch()
	if err != nil {
		return nil, err
	}
	hits, err := cs.Query(ctx, tools.SearchRequest{Query: p.Query, MaxResults: p.MaxResults})
	if err != nil {
		return nil, err
	}
	out := make([]editor.SearchHit, len(hits))
	for i, h := range hits {
		out[i] = editor.SearchHit(h)
	}
	return out, nil
}

// Reindex rebuilds the code index in the background, with progress.
func (s *Service) Reindex(ctx context.Context) error {
	cs, err := s.codeSearch()
	if err != nil {
		return err
	}
	cs.Reindex()
	return nil
}

// Workflows lists the workflows.
func (s *Service) Workflows(ctx context.Context) ([]editor.WorkflowSummary, error) {
	e, err := s.open(ctx)
	if err != nil {
		return nil, err
	}
	return e.Summaries(ctx)
}

// Workflow is one workflow's detail, its review comments anchored.
func (s *Service) Workflow(ctx context.Context, ref editor.WorkflowRef) (editor.WorkflowDetail, error) {
	e, err := s.open(ctx)
	if err != nil {
		return editor.WorkflowDetail{}, err
	}
	d, err := e.Detail(ctx, ref.WorkflowID)
	if err != nil {
		return editor.WorkflowDetail{}, invalid("%w", err)
	}
	if d.Review != nil {
		e.Anchor(ctx, d.Review, s.cfg.Document)
	}
	return d, nil
}

// restoreScan bounds the workflows RestoreReview looks through.
const restoreScan = 20

// RestoreReview shows again, in the background, the latest review of a
// workflow that is not abandoned as diagnostics (with their quick fixes):
// an editor that reloads finds its Problems as it left them, before any
// workflow event. A folder that holds no workflows shows nothing.
func (s *Service) RestoreReview(ctx context.Context) {
	err := s.goRun(ctx, func(ctx context.Context) {
		e, err := s.open(ctx)
		if err != nil {
			s.cfg.Log.Debug("no review to restore", "err", err)
			return
		}
		list, err := e.Summaries(ctx)
		if err != nil {
			s.cfg.Log.Warn("reviews not restored", "err", err)
			return
		}
		for _, w := range list[:min(len(list), restoreScan)] {
			if w.Status == string(store.WorkflowAbandoned) {
				continue
			}
			d, err := e.Detail(ctx, w.ID)
			if err != nil {
				s.cfg.Log.Warn("review not restored", "workflow", w.Name, "err", err)
				continue
			}
			if d.Review != nil && len(d.Review.Comments) > 0 {
				s.review.publish(ctx, d.Review)
				return
			}
		}
	})
	if err != nil {
		s.cfg.Log.Debug("reviews not restored", "err", err)
	}
}

// FileAt is a file's content at a commit.
func (s *Service) FileAt(ctx context.Context, p editor.FileAtParams) (editor.FileAtResult, error) {
	e, err := s.open(ctx)
	if err != nil {
		return editor.FileAtResult{}, err
	}
	b, err := e.cfg.Repo.FileAt(ctx, p.Commit, p.Path)
	if errors.Is(err, git.ErrNoFile) {
		return editor.FileAtResult{Missing: true}, nil
	}
	if err != nil {
		return editor.FileAtResult{}, invalid("%w", err)
	}
	return editor.FileAtResult{Text: string(b)}, nil
}

// Diff is the diff of a workflow or of one of its pulses.
func (s *Service) Diff(ctx context.Context, p editor.PulseDiffParams) (editor.PulseDiff, error) {
	e, wf, err := s.find(ctx, editor.WorkflowRef{WorkflowID: p.WorkflowID})
	if err != nil {
		return editor.PulseDiff{}, err
	}
	return e.Diff(ctx, wf, p.PulseID)
}

// Apply brings a workflow's work into the user's folder and re-anchors the
// review.
func (s *Service) Apply(ctx context.Context, p editor.ApplyWorkflowParams) (editor.ApplyWorkflowResult, error) {
	e, wf, err := s.find(ctx, editor.WorkflowRef{WorkflowID: p.WorkflowID})
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	res, err := e.Apply(ctx, wf, ApplyMode(p.Mode), s.cfg.Document)
	if err == nil && res.Applied {
		s.review.reanchor(ctx, nil)
	}
	return res, err
}

// FilesChanged tells the session files changed on disk (saved, created,
// deleted; absolute paths): the index and the review follow.
func (s *Service) FilesChanged(paths ...string) {
	s.mu.Lock()
	cs := s.search
	s.mu.Unlock()
	if cs != nil {
		cs.Changed(paths...)
	}
	for _, p := range paths {
		s.review.reanchorSoon(p)
	}
	s.configChanged(paths)
}

// Edited tells the session a buffer changed (absolute path, full text);
// opened is true for a document just opened.
func (s *Service) Edited(path, text string, opened bool) {
	s.mu.Lock()
	cs := s.search
	s.mu.Unlock()
	if cs != nil && !opened {
		cs.Edited(path, text)
	}
	s.review.reanchorSoon(path)
}

// repo is the open project's repository (nil before the engine opens).
func (s *Service) repo() *git.Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.project == nil {
		return nil
	}
	return s.project.Repo
}

// onEvent forwards a workflow event to the events' sink, and shows it as
// progress and as review diagnostics.
func (s *Service) onEvent(ev Event) {
	ctx := context.Background()
	run.Send(s.cfg.Events, ev)
	switch ev.Kind {
	case editor.EventToolCall:
		s.reportProgress(ctx, s.progressKey(ctx, ev), ev.Tool+": "+ev.Reason)
	case editor.EventStage:
		s.endProgress(ctx, ev.WorkflowID, ev.Text)
		if ev.Stage == string(StagePreflight) && ev.Status == "running" {
			s.beginProgress(ctx, ev.WorkflowID, ev.WorkflowID, "Autarch: preflight — installing and baselining in the worktree")
		}
	case editor.EventPulse:
		switch ev.Status {
		case string(PulseRunning):
			s.beginProgress(ctx, ev.WorkflowID, s.progressKey(ctx, ev), fmt.Sprintf("Autarch: pulse %s — %s", ev.PulseID, ev.Text))
		case string(PulseSucceeded), string(PulseFailed), string(PulseStopped):
			s.endOne(ctx, s.progressKey(ctx, ev), ev.Text)
		}
	case editor.EventReviewComment:
		s.review.show(ctx, ev.WorkflowID)
	case editor.EventCard:
		if ev.Card != nil && ev.Card.Kind == editor.CardReview {
			s.review.show(ctx, ev.WorkflowID)
		}
	}
}

// workProgress is the progress shown for a workflow's current work.
type workProgress struct {
	p     editor.Progress
	ended chan struct{}
}

// progressKey is where an event's progress goes: its pulse's own item (the
// pulses of a parallel workflow run at once, one item each), or the
// workflow's. Pulse events name the plan's pulse id, the agents' events the
// stored pulse's id.
func (s *Service) progressKey(ctx context.Context, ev Event) string {
	if ev.PulseID == "" {
		return ev.WorkflowID
	}
	planned := ev.PulseID
	if ev.Kind != editor.EventPulse {
		planned = s.plannedID(ctx, ev.PulseID)
	}
	return ev.WorkflowID + "/" + planned
}

// plannedID is the plan's id of a stored pulse (remembered; "" unknown).
func (s *Service) plannedID(ctx context.Context, pulseID string) string {
	if id, ok := s.planned.Load(pulseID); ok {
		return id.(string)
	}
	s.mu.Lock()
	e := s.engine
	s.mu.Unlock()
	if e == nil {
		return ""
	}
	p, err := e.Store().Pulse(ctx, pulseID)
	if err != nil {
		return ""
	}
	s.planned.Store(pulseID, p.PlannedID)
	return p.PlannedID
}

// beginProgress shows a cancellable progress item for a workflow's current
// work (key: the workflow's id, or a pulse's key); cancelling it stops the
// workflow.
func (s *Service) beginProgress(ctx context.Context, workflowID, key, title string) {
	s.endOne(ctx, key, "")
	p, err := s.cfg.Editor.StartProgress(ctx, title, true)
	if err != nil {
		s.cfg.Log.Debug("progress not shown", "err", err)
		return
	}
	wp := &workProgress{p: p, ended: make(chan struct{})}
	s.progMu.Lock()
	s.progress[key] = wp
	s.progMu.Unlock()
	s.mu.Lock()
	e := s.engine
	s.mu.Unlock()
	err = s.goRun(ctx, func(ctx context.Context) {
		select {
		case <-p.Cancelled():
			if e != nil {
				if err := e.Stop(ctx, workflowID, "cancelled from the progress notification"); err != nil {
					s.cfg.Log.Warn("stop from progress", "err", err)
				}
			}
		case <-wp.ended:
		case <-ctx.Done():
		}
	})
	if err != nil {
		s.cfg.Log.Debug("progress not watched", "err", err)
	}
}

func (s *Service) reportProgress(ctx context.Context, key, message string) {
	s.progMu.Lock()
	wp := s.progress[key]
	if wp == nil {
		wp = s.progress[strings.SplitN(key, "/", 2)[0]] // the workflow's item
	}
	s.progMu.Unlock()
	if wp != nil {
		if err := wp.p.Report(ctx, message, -1); err != nil {
			s.cfg.Log.Debug("progress not delivered", "err", err)
		}
	}
}

// endProgress ends every progress item of the workflow (its own and its
// pulses').
func (s *Service) endProgress(ctx context.Context, workflowID, message string) {
	s.progMu.Lock()
	var keys []string
	for k := range s.progress {
		if k == workflowID || strings.HasPrefix(k, workflowID+"/") {
			keys = append(keys, k)
		}
	}
	s.progMu.Unlock()
	for _, k := range keys {
		s.endOne(ctx, k, message)
	}
}

// endOne ends one progress item.
func (s *Service) endOne(ctx context.Context, key, message string) {
	s.progMu.Lock()
	wp := s.progress[key]
	delete(s.progress, key)
	s.progMu.Unlock()
	if wp == nil {
		return
	}
	close(wp.ended)
	if err := wp.p.End(context.WithoutCancel(ctx), message); err != nil {
		s.cfg.Log.Debug("progress end not delivered", "err", err)
	}
}

// invalid is a request the user can fix (run.Invalid), its message made
// as by fmt.Errorf.
func invalid(format string, args ...any) error {
	return run.Invalid(fmt.Errorf(format, args...))
}

// Open shows a file of the workspace at a line in the editor (relative
// paths are the first folder's).
func (s *Service) Open(ctx context.Context, p editor.OpenFileParams) (editor.OpenFileResult, error) {
	folder, err := s.folder()
	if err != nil {
		return editor.OpenFileResult{}, err
	}
	path := p.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(folder, filepath.FromSlash(path))
	}
	if rel, err := filepath.Rel(folder, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return editor.OpenFileResult{}, invalid("%s is outside the workspace", p.Path)
	}
	params := protocol.ShowDocumentParams{URI: uri.File(path), TakeFocus: ptr(true)}
	if p.Line > 0 {
		pos := protocol.Position{Line: uint32(p.Line - 1)}
		params.Selection = &protocol.Range{Start: pos, End: pos}
	}
	shown, err := s.cfg.Editor.ShowDocument(ctx, params)
	return editor.OpenFileResult{Shown: shown}, err
}
