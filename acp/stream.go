package acp

import (
	"context"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
)

// Deltas is the workflow engine's Deltas for ui, the editor client acp
// gave the folder's session (nil for any other client): the text the
// agents' model streams reaches the ACP client as agent message chunks as
// it is written. A piece goes to the session driving its workflow; the
// discussion agent's (no workflow) to the session discussing.
func Deltas(ui editor.Client) func(workflow.Delta) {
	f, ok := ui.(*folder)
	if !ok {
		return nil
	}
	return func(d workflow.Delta) {
		ctx := context.Background()
		if s := f.route(ctx, d.WorkflowID, ""); s != nil {
			s.workflowDelta(ctx, d)
		}
	}
}

// Events is the application session's Events (and Deltas) for ui, the
// editor client acp gave the folder's session (nil for any other
// client): a workflow's or a job's event goes to the session driving it
// (the discussion's to the session discussing), a piece of a job agent's
// message streams to its session.
func Events(ui editor.Client) func(app.Event) {
	f, ok := ui.(*folder)
	if !ok {
		return nil
	}
	return f.event
}

// event routes one event of the folder's application session.
func (f *folder) event(ev app.Event) {
	ctx := context.Background()
	switch {
	case ev.Workflow != nil:
		if s := f.route(ctx, ev.Workflow.WorkflowID, ""); s != nil {
			s.workflowEvent(ctx, *ev.Workflow)
		}
	case ev.Job != nil && ev.Job.Kind == "text":
		f.jobDelta(*ev.Job)
	case ev.Job != nil:
		f.jobEvent(*ev.Job)
	}
}

// jobDelta streams a piece of a job agent's message to its session.
func (f *folder) jobDelta(ev editor.JobEvent) {
	ctx := context.Background()
	if s := f.route(ctx, "", ev.JobID); s != nil {
		s.stream(ctx, jobStream, ev.Text)
	}
}
