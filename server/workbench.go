package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// workbench is the workflow side of the server: the engine over the first
// workspace folder (opened on first use), background runs, their progress
// and the review diagnostics.
type workbench struct {
	s *Server

	mu     sync.Mutex
	engine *workflow.Engine
	store  *store.Store
	repo   *git.Repo
	life   context.Context // cancelled when the session ends
	runs   sync.WaitGroup

	searchMu sync.Mutex
	search   *codeSearch

	progMu      sync.Mutex
	progress    map[string]editor.Progress // by workflow id + pulse
	diagMu      sync.Mutex
	diags       map[string]bool    // URIs with review diagnostics published
	lastReview  *editor.ReviewView // the review those diagnostics show
	anchorTimer *time.Timer
}

func newWorkbench(s *Server) *workbench {
	return &workbench{s: s, life: context.Background(), progress: map[string]editor.Progress{}, diags: map[string]bool{}}
}

// start binds the workbench to the session's lifetime.
func (w *workbench) start(ctx context.Context) {
	w.mu.Lock()
	w.life = ctx
	w.mu.Unlock()
}

// stop waits (bounded) for background runs to record how they ended, then
// closes the store.
func (w *workbench) stop(timeout time.Duration) {
	done := make(chan struct{})
	go func() { w.runs.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		w.s.log.Warn("workflow runs still finishing at exit")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.engine != nil {
		w.engine.Close()
	}
	if w.store != nil {
		w.store.Close()
	}
}

// open returns the engine, opening it over the first workspace folder.
func (w *workbench) open(ctx context.Context) (*workflow.Engine, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.engine != nil {
		return w.engine, nil
	}
	w.s.mu.Lock()
	folders := append([]string(nil), w.s.folders...)
	w.s.mu.Unlock()
	if len(folders) == 0 {
		return nil, errors.New("no workspace folder is open: open a folder that is a git repository")
	}
	p, err := workflow.OpenProject(ctx, folders[0], nil)
	if err != nil {
		return nil, err
	}
	if p.Config.Untrusted() != "" {
		go w.askTrust(p)
	}
	policy, err := w.commandPolicy(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	search, err := w.codeSearch()
	if err != nil {
		p.Close()
		return nil, err
	}
	e, err := p.Engine(ctx, workflow.Config{Editor: w.s.Client(), Model: settingsModel{s: w.s}, Commands: policy,
		Settings: agent.Settings{RoleModels: agent.RoleModelsFromEnv()}, Mode: tools.ModeConfirmSensitive,
		Search: search.scope(p.Repo), Diagnostics: w.editorDiagnostics(), Log: w.s.log.With("component", "workflow"), Events: w.onEvent})
	if e == nil {
		p.Close()
		return nil, err
	}
	if err != nil {
		w.s.log.Warn("recover interrupted workflows", "err", err)
	}
	st, repo := p.Store, p.Repo
	w.engine, w.store, w.repo = e, st, repo
	return e, nil
}

// codeSearch is the code index of the first workspace folder (a git
// repository or not), created on first use. Callers hold no lock.
func (w *workbench) codeSearch() (*codeSearch, error) {
	w.s.mu.Lock()
	var folder string
	if len(w.s.folders) > 0 {
		folder = w.s.folders[0]
	}
	w.s.mu.Unlock()
	w.searchMu.Lock()
	defer w.searchMu.Unlock()
	if w.search != nil {
		return w.search, nil
	}
	if folder == "" {
		return nil, errors.New("no workspace folder is open")
	}
	w.search = newCodeSearch(w.s, folder)
	return w.search, nil
}

// background runs a workflow step (Run, Resume) for the session's
// lifetime; how it ended is reported to the user.
func (w *workbench) background(name string, fn func(ctx context.Context) (store.Workflow, error)) {
	w.mu.Lock()
	life := w.life
	w.mu.Unlock()
	w.runs.Add(1)
	go func() {
		defer w.runs.Done()
		wf, err := fn(life)
		w.endProgress(wf.ID, "")
		var h *workflow.Halt
		switch {
		case err == nil && wf.Status == store.WorkflowCompleted:
			w.s.Client().ShowMessage(context.WithoutCancel(life), editor.Info, fmt.Sprintf("Autarch: workflow %s completed; branch %s is ready to apply.", wf.Name, wf.WorkflowBranch))
		case errors.Is(err, workflow.ErrWaiting):
			w.s.Client().ShowMessage(context.WithoutCancel(life), editor.Info, fmt.Sprintf("Autarch: workflow %s waits for your answer (side panel).", wf.Name))
		case errors.As(err, &h):
			w.s.Client().ShowMessage(context.WithoutCancel(life), editor.Warning, fmt.Sprintf("Autarch: workflow %s halted: %s", wf.Name, h.Error()))
		case err != nil:
			w.s.log.Error("workflow run failed", "workflow", name, "err", err)
			w.s.Client().ShowMessage(context.WithoutCancel(life), editor.Error, fmt.Sprintf("Autarch: workflow %s failed: %v", name, err))
		}
	}()
}

// onEvent forwards a workflow event: to the side panel, to the log of any
// client, as progress, and as review diagnostics.
func (w *workbench) onEvent(ev workflow.Event) {
	ctx := context.WithoutCancel(w.lifetime())
	if err := w.s.Client().Notify(ctx, editor.MethodWorkflowEvent, ev); err != nil {
		w.s.log.Debug("workflow event not delivered", "err", err)
	}
	switch ev.Kind {
	case "tool_call":
		w.s.Client().LogMessage(ctx, editor.Log, fmt.Sprintf("[%s] %s: %s", ev.Stage, ev.Tool, ev.Reason))
		w.reportProgress(ev.WorkflowID, ev.Tool+": "+ev.Reason)
	case "stage":
		w.endProgress(ev.WorkflowID, ev.Text)
		if ev.Stage == string(workflow.StagePreflight) && ev.Status == "running" {
			w.beginProgress(ev.WorkflowID, "Autarch: preflight — installing and baselining in the worktree")
		}
	case "pulse":
		switch ev.Status {
		case string(workflow.PulseRunning):
			w.beginProgress(ev.WorkflowID, fmt.Sprintf("Autarch: pulse %s — %s", ev.PulseID, ev.Text))
		case string(workflow.PulseSucceeded), string(workflow.PulseFailed), string(workflow.PulseStopped):
			w.endProgress(ev.WorkflowID, ev.Text)
		}
	case "review_comment", "card":
		if ev.Kind == "review_comment" || strings.HasPrefix(ev.Status, "review ") {
			w.publishReview(ctx, ev.WorkflowID)
		}
	}
}

func (w *workbench) lifetime() context.Context {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.life
}

// beginProgress shows a cancellable progress for a workflow's current work;
// cancelling it stops the workflow.
func (w *workbench) beginProgress(workflowID, title string) {
	w.endProgress(workflowID, "")
	ctx := context.WithoutCancel(w.lifetime())
	p, err := w.s.Client().StartProgress(ctx, title, true)
	if err != nil {
		w.s.log.Debug("progress not shown", "err", err)
		return
	}
	w.progMu.Lock()
	w.progress[workflowID] = p
	w.progMu.Unlock()
	w.mu.Lock()
	e := w.engine
	w.mu.Unlock()
	go func() {
		<-p.Cancelled()
		w.progMu.Lock()
		current := w.progress[workflowID] == p
		w.progMu.Unlock()
		if current && e != nil {
			e.Stop(ctx, workflowID, "cancelled from the progress notification")
		}
	}()
}

func (w *workbench) reportProgress(workflowID, message string) {
	w.progMu.Lock()
	p := w.progress[workflowID]
	w.progMu.Unlock()
	if p != nil {
		p.Report(context.WithoutCancel(w.lifetime()), message, -1)
	}
}

func (w *workbench) endProgress(workflowID, message string) {
	w.progMu.Lock()
	p := w.progress[workflowID]
	delete(w.progress, workflowID)
	w.progMu.Unlock()
	if p != nil {
		p.End(context.WithoutCancel(w.lifetime()), message)
	}
}

// settingsModel is the model of the current settings (they may change
// while the server runs).
type settingsModel struct{ s *Server }

func (m settingsModel) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	m.s.mu.Lock()
	st := m.s.settings
	m.s.mu.Unlock()
	if req.Model == "" {
		req.Model = st.model.Name
	}
	if req.Model == "" {
		return agent.Response{}, errors.New("no model configured: set autarch.model.name (or AUTARCH_MODEL)")
	}
	return openai.New(openai.Config{BaseURL: st.model.BaseURL, APIKey: st.apiKey, Stream: true}).Complete(ctx, req, onText)
}

// editorDiagnostics asks the client for its diagnostics (autarch/diagnostics)
// when it declared it can; nil otherwise.
func (w *workbench) editorDiagnostics() tools.Diagnostics {
	w.s.mu.Lock()
	ok := w.s.client.diagnostics
	w.s.mu.Unlock()
	if !ok {
		return nil
	}
	return func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error) {
		if paths == nil {
			paths = []string{}
		}
		var res editor.DiagnosticsResult
		if err := w.s.Client().Call(ctx, editor.MethodDiagnostics, editor.DiagnosticsParams{Paths: paths}, &res); err != nil {
			return nil, err
		}
		return res.Diagnostics, nil
	}
}

// askTrust asks the user whether to trust the repository's configuration
// (hooks run only from trusted content); until then it is ignored.
func (w *workbench) askTrust(p *workflow.Project) {
	w.mu.Lock()
	life := w.life
	w.mu.Unlock()
	var detail strings.Builder
	for _, f := range p.Config.Config.Files {
		fmt.Fprintf(&detail, "%s:\n%s\n", f.Name, f.Data)
	}
	v, err := w.s.Client().Approve(life, editor.Approval{Kind: "trust",
		Title:  "Trust this repository's configuration? Its hooks run commands on your machine.",
		Detail: p.Config.Untrusted() + "\n\n" + detail.String()})
	if err != nil || v.Decision != editor.DecisionApprove && v.Decision != editor.DecisionAlwaysAllow {
		w.s.log.Warn("repository configuration not trusted: ignored", "files", p.Config.Config.Names(), "err", err)
		return
	}
	if err := p.Trust(); err != nil {
		w.s.Client().ShowMessage(life, editor.Warning, "Autarch: the configuration was not trusted: "+err.Error())
		return
	}
	w.s.Client().ShowMessage(life, editor.Info, "Autarch: this repository's hooks are trusted and now run.")
}

// commandPolicy picks how the agents' commands are confined; when no
// sandbox works the user is told once (commands are then refused, or run
// unconfined if they opted in).
func (w *workbench) commandPolicy(ctx context.Context) (tools.CommandPolicy, error) {
	p, err := tools.CommandPolicyFromEnv()
	if err != nil {
		return p, err
	}
	selected, st, err := tools.SelectSandbox(ctx, p)
	switch {
	case err != nil:
		w.s.Client().ShowMessage(ctx, editor.Warning, "Autarch: agents' shell commands will be refused: "+err.Error())
		return p, nil
	case !st.Available:
		w.s.Client().ShowMessage(ctx, editor.Warning, "Autarch: agents' commands run UNCONFINED (you opted in with AUTARCH_ALLOW_UNSANDBOXED=1): "+st.String())
	}
	return selected, nil
}
