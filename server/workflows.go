package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// registerWorkflows adds the workflow commands and requests (editor/lspext.go).
func (s *Server) registerWorkflows() {
	w := s.wb
	s.commands[editor.CommandNewWorkflow] = w.newWorkflow
	s.commands[editor.CommandDiscuss] = w.discuss
	s.commands[editor.CommandStopWorkflow] = w.stopWorkflow
	s.commands[editor.CommandResumeWorkflow] = w.resumeWorkflow
	s.commands[editor.CommandAnswer] = w.answer
	s.commands[editor.CommandReviewBranch] = w.reviewBranch
	s.commands[editor.CommandSearch] = w.searchCode
	s.commands[editor.CommandReindex] = w.reindex
	s.commands[editor.CommandApplyWorkflow] = w.applyWorkflow
	s.commands[editor.CommandPulseDiff] = w.pulseDiff
	s.requests[editor.MethodWorkflows] = w.workflows
	s.requests[editor.MethodWorkflow] = w.workflow
	s.requests[editor.MethodFileAt] = w.fileAt
	s.requests["textDocument/codeAction"] = s.codeActions
}

// arg decodes a command's single object argument.
func arg(args []json.RawMessage, v any) error {
	if len(args) != 1 {
		return invalidParams("the command takes one object argument, got %d arguments", len(args))
	}
	return decode(args[0], v)
}

func (w *workbench) newWorkflow(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.NewWorkflowParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	wf, err := e.Start(ctx, workflow.Task{Text: p.Task, Name: p.Name, Path: workflow.Path(p.Path)})
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	w.background(wf.Name, func(ctx context.Context) (store.Workflow, error) { return e.Run(ctx, wf.ID) })
	return editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name}, nil
}

func (w *workbench) discuss(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.DiscussParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Message) == "" {
		return nil, invalidParams("the message is empty: ask something about the code")
	}
	w.runs.Add(1)
	go func() {
		defer w.runs.Done()
		if _, err := e.Discuss(w.lifetime(), p.Message); err != nil {
			w.s.Client().ShowMessage(context.WithoutCancel(w.lifetime()), editor.Error, "Autarch: the discussion failed: "+err.Error())
		}
	}()
	return struct{}{}, nil
}

// ref decodes a WorkflowRef argument and opens the engine.
func (w *workbench) ref(ctx context.Context, args []json.RawMessage) (*workflow.Engine, string, error) {
	var p editor.WorkflowRef
	if err := arg(args, &p); err != nil {
		return nil, "", err
	}
	id := p.WorkflowID
	if id == "" {
		id = p.Name
	}
	if id == "" {
		return nil, "", invalidParams("name the workflow: {\"workflowId\": ...}")
	}
	e, err := w.open(ctx)
	return e, id, err
}

// find opens the engine and the workflow a command names (its id or name).
func (w *workbench) find(ctx context.Context, idOrName string) (*workflow.Engine, store.Workflow, error) {
	e, err := w.open(ctx)
	if err != nil {
		return nil, store.Workflow{}, err
	}
	wf, err := e.Find(ctx, idOrName)
	if err != nil {
		return nil, store.Workflow{}, invalidParams("%v", err)
	}
	return e, wf, nil
}

func (w *workbench) stopWorkflow(ctx context.Context, args []json.RawMessage) (any, error) {
	e, id, err := w.ref(ctx, args)
	if err != nil {
		return nil, err
	}
	return struct{}{}, e.Stop(ctx, id, "stopped by the user")
}

func (w *workbench) resumeWorkflow(ctx context.Context, args []json.RawMessage) (any, error) {
	_, id, err := w.ref(ctx, args)
	if err != nil {
		return nil, err
	}
	e, wf, err := w.find(ctx, id)
	if err != nil {
		return nil, err
	}
	if wf.Status == store.WorkflowCompleted || wf.Status == store.WorkflowAbandoned {
		return nil, invalidParams("workflow %s is %s and cannot be resumed", wf.Name, wf.Status)
	}
	w.background(wf.Name, func(ctx context.Context) (store.Workflow, error) { return e.Resume(ctx, wf.ID) })
	return editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name}, nil
}

func (w *workbench) answer(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.AnswerParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	if p.Verdict != nil {
		err = e.DecidePending(ctx, p.WorkflowID, p.PendingID, *p.Verdict)
	} else {
		err = e.AnswerPending(ctx, p.WorkflowID, p.PendingID, p.Answers)
	}
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	w.background(p.WorkflowID, func(ctx context.Context) (store.Workflow, error) { return e.Resume(ctx, p.WorkflowID) })
	return struct{}{}, nil
}

func (w *workbench) reviewBranch(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.ReviewBranchParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	res, err := e.Review(context.WithoutCancel(ctx), workflow.ReviewRequest{Base: p.Base})
	if err != nil {
		return nil, err
	}
	v, err := e.ReviewView(ctx, res.Card)
	if err != nil {
		return nil, err
	}
	w.publishComments(ctx, &v)
	return v, nil
}

func (w *workbench) searchCode(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.SearchParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Query) == "" {
		return nil, invalidParams("the query is empty")
	}
	if p.MaxResults <= 0 || p.MaxResults > 100 {
		p.MaxResults = 20
	}
	search, err := w.codeSearch()
	if err != nil {
		return nil, err
	}
	select {
	case <-search.ensure(ctx, false):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	hits, st, err := search.Search(ctx, tools.SearchRequest{Query: p.Query, MaxResults: p.MaxResults})
	if err != nil {
		return nil, err
	}
	if !st.Indexed && len(hits) == 0 {
		return nil, errors.New("the project has not been indexed yet (indexing failed or was cancelled: run Reindex Workspace)")
	}
	out := make([]editor.SearchHit, len(hits))
	for i, h := range hits {
		out[i] = editor.SearchHit(h)
	}
	return out, nil
}

func (w *workbench) reindex(ctx context.Context, args []json.RawMessage) (any, error) {
	search, err := w.codeSearch()
	if err != nil {
		return nil, err
	}
	search.ensure(ctx, true)
	return struct{}{}, nil
}

func (w *workbench) pulseDiff(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.PulseDiffParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	_, wf, err := w.find(ctx, p.WorkflowID)
	if err != nil {
		return nil, err
	}
	base, head, title := wf.BaseCommit, wf.WorkflowBranch, "workflow "+wf.Name
	if p.PulseID != "" {
		pulse, err := pulseByID(ctx, w.store, wf.ID, p.PulseID)
		if err != nil {
			return nil, invalidParams("%v", err)
		}
		if pulse.CheckpointCommit == "" {
			return nil, invalidParams("pulse %s has no commit yet (it is %s)", p.PulseID, pulse.Status)
		}
		base, head, title = pulse.CheckpointCommit+"^", pulse.CheckpointCommit, fmt.Sprintf("pulse %s: %s", p.PulseID, pulse.Title)
	}
	return diffView(ctx, w.repo, base, head, title)
}

func pulseByID(ctx context.Context, st *store.Store, workflowID, plannedID string) (store.Pulse, error) {
	pulses, err := st.WorkflowPulses(ctx, workflowID)
	if err != nil {
		return store.Pulse{}, err
	}
	var found *store.Pulse
	for i := range pulses {
		if pulses[i].PlannedID == plannedID {
			found = &pulses[i] // the latest plan's pulse wins
		}
	}
	if found == nil {
		return store.Pulse{}, fmt.Errorf("the workflow has no pulse %q", plannedID)
	}
	return *found, nil
}

// diffView resolves base and head and lists the files between them.
func diffView(ctx context.Context, repo *git.Repo, base, head, title string) (editor.PulseDiff, error) {
	b, err := repo.ResolveCommit(ctx, base)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	h, err := repo.ResolveCommit(ctx, head)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	d, err := repo.Diff(ctx, b, h)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	out := editor.PulseDiff{Base: b, Head: h, Title: title, Files: []editor.PulseDiffFile{}}
	for _, f := range d.Files {
		out.Files = append(out.Files, editor.PulseDiffFile{Path: f.Path, OldPath: f.OldPath, Status: string(f.Status), Additions: f.Additions, Deletions: f.Deletions})
	}
	return out, nil
}

func (w *workbench) workflows(ctx context.Context, _ json.RawMessage) (any, error) {
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	return e.Summaries(ctx)
}

func (w *workbench) workflow(ctx context.Context, raw json.RawMessage) (any, error) {
	var p editor.WorkflowRef
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	e, err := w.open(ctx)
	if err != nil {
		return nil, err
	}
	d, err := e.Detail(ctx, p.WorkflowID)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	if d.Review != nil {
		w.anchor(ctx, d.Review)
	}
	return d, nil
}

func (w *workbench) fileAt(ctx context.Context, raw json.RawMessage) (any, error) {
	var p editor.FileAtParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if _, err := w.open(ctx); err != nil {
		return nil, err
	}
	b, err := w.repo.FileAt(ctx, p.Commit, p.Path)
	if errors.Is(err, git.ErrNoFile) {
		return editor.FileAtResult{Missing: true}, nil
	}
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	return editor.FileAtResult{Text: string(b)}, nil
}
