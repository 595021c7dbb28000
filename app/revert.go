package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
)

// Revert and redo of a workflow's pulses for the transports (issue 32):
// the engine's PlanRevert, Revert and MarkRedo, with the session's
// background resume for redo. A pulse that cannot be reverted or redone
// (unknown, running, not reverted, an applied workflow not confirmed) is
// the person's mistake: the error says what to do and is marked invalid
// params for the transports.

// PlanRevert says what reverting a pulse would undo, changing nothing.
func (s *Session) PlanRevert(ctx context.Context, p editor.RevertPulseParams) (editor.RevertPlanView, error) {
	e, id, err := s.revertTarget(ctx, p.WorkflowID, p.Name, p.Pulse)
	if err != nil {
		return editor.RevertPlanView{}, err
	}
	plan, err := e.PlanRevert(ctx, id, p.Pulse)
	if err != nil {
		return editor.RevertPlanView{}, userError(ctx, err)
	}
	return planView(plan), nil
}

// RevertPulse reverts a pulse and the later pulses that depend on it.
func (s *Session) RevertPulse(ctx context.Context, p editor.RevertPulseParams) (editor.RevertPulseResult, error) {
	e, id, err := s.revertTarget(ctx, p.WorkflowID, p.Name, p.Pulse)
	if err != nil {
		return editor.RevertPulseResult{}, err
	}
	res, err := e.Revert(ctx, id, p.Pulse, workflow.RevertOptions{Applied: p.Applied})
	if err != nil {
		return editor.RevertPulseResult{}, userError(ctx, err)
	}
	out := editor.RevertPulseResult{Plan: planView(res.Plan), Commits: []string{}, Resolved: res.Resolved, Message: res.Message}
	for _, c := range res.Commits {
		out.Commits = append(out.Commits, c.Commit)
	}
	return out, nil
}

// RedoPulse records the guidance for a reverted pulse's next run and
// resumes the workflow in the background.
func (s *Session) RedoPulse(ctx context.Context, p editor.RedoPulseParams) (editor.WorkflowRef, error) {
	e, id, err := s.revertTarget(ctx, p.WorkflowID, p.Name, p.Pulse)
	if err != nil {
		return editor.WorkflowRef{}, err
	}
	wf, err := e.MarkRedo(ctx, id, p.Pulse, p.Guidance)
	if err != nil {
		return editor.WorkflowRef{}, userError(ctx, err)
	}
	return s.Resume(ctx, editor.WorkflowRef{WorkflowID: wf.ID, Name: wf.Name})
}

// revertTarget opens the engine and checks that a workflow and a pulse
// are named.
func (s *Session) revertTarget(ctx context.Context, id, name, pulse string) (*workflow.Engine, string, error) {
	if id == "" {
		id = name
	}
	if id == "" || pulse == "" {
		return nil, "", invalid(`name the workflow and the pulse: {"workflowId": ..., "pulse": "pulse-2"}`)
	}
	e, err := s.Engine(ctx)
	if err != nil {
		return nil, "", err
	}
	return e, id, nil
}

func planView(p workflow.RevertPlan) editor.RevertPlanView {
	v := editor.RevertPlanView{WorkflowID: p.WorkflowID, Workflow: p.Workflow, Branch: p.Branch, Pulse: p.Pulse,
		Pulses: []editor.RevertPulseView{}, Files: p.Files, AppliedTo: p.AppliedTo}
	if v.Files == nil {
		v.Files = []string{}
	}
	for _, x := range p.Pulses {
		files := x.Files
		if files == nil {
			files = []string{}
		}
		v.Pulses = append(v.Pulses, editor.RevertPulseView{ID: x.ID, Title: x.Title, Status: string(x.Status), Commit: x.Commit,
			Summary: x.Summary, Files: files})
	}
	return v
}

// invalidError is a request the person can correct: the transports answer
// it as invalid params with its message.
type invalidError struct{ error }

func (invalidError) Invalid() bool { return true }

func (e invalidError) Unwrap() error { return e.error }

func invalid(format string, args ...any) error { return invalidError{fmt.Errorf(format, args...)} }

// userError marks the engine's refusals as the person's to correct; a
// cancelled request stays cancelled.
func userError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	return invalidError{err}
}

// PulseReceipt is a pulse's completion receipt for the side panel: its
// text as autarch receipt show prints it, and its JSON.
func (s *Session) PulseReceipt(ctx context.Context, p editor.PulseReceiptParams) (editor.PulseReceiptView, error) {
	if p.WorkflowID == "" || p.Pulse == "" {
		return editor.PulseReceiptView{}, invalid(`name the workflow and the pulse: {"workflowId": ..., "pulse": "pulse-1"}`)
	}
	r, ok, err := s.Service.PulseReceipt(ctx, p.WorkflowID, p.Pulse)
	if err != nil {
		return editor.PulseReceiptView{}, err
	}
	if !ok {
		return editor.PulseReceiptView{Message: fmt.Sprintf("%s has no receipt: it has no checkpoint commit yet (not run, failed, reverted or a recovery checkpoint), or its commit was made without one (a dry run, or before receipts). Run the pulse to completion to get one.", p.Pulse)}, nil
	}
	raw, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return editor.PulseReceiptView{}, fmt.Errorf("encode the receipt of %s: %w", p.Pulse, err)
	}
	return editor.PulseReceiptView{Found: true, Commit: r.Commit, Text: r.Text(), Receipt: string(raw)}, nil
}
