package acp

import (
	"context"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
)

// StreamTo makes the text a model streams during a discussion turn reach
// the ACP client as agent message chunks as it arrives; ui is the editor
// client acp gave the folder's session (any other client: m unchanged).
// Workflow and job agents' messages are sent whole when the engine takes
// them, since it holds back some (a question asked in prose).
func StreamTo(ui editor.Client, m agent.Model) agent.Model {
	f, ok := ui.(*folder)
	if !ok || m == nil {
		return m
	}
	s := streaming{m: m, f: f}
	if d, ok := m.(agent.DefaultNamer); ok {
		return namedStreaming{s, d}
	}
	return s
}

type streaming struct {
	m agent.Model
	f *folder
}

func (s streaming) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	if editor.WorkflowFrom(ctx) != "" {
		return s.m.Complete(ctx, req, onText)
	}
	s.f.mu.Lock()
	to := s.f.discussing
	s.f.mu.Unlock()
	if to == nil {
		return s.m.Complete(ctx, req, onText)
	}
	return s.m.Complete(ctx, req, func(text string) {
		if onText != nil {
			onText(text)
		}
		to.stream(ctx, text)
	})
}

// namedStreaming keeps the model's DefaultNamer.
type namedStreaming struct {
	streaming
	d agent.DefaultNamer
}

func (n namedStreaming) DefaultModelName() string { return n.d.DefaultModelName() }
