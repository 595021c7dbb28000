package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
)

// The workflow mode's slash commands (issue 32): /revert PULSE undoes a
// pulse of the session's workflow, and the later pulses that depend on
// it, after a permission request that lists what will be undone; /redo
// PULSE [guidance] runs a reverted pulse again, the turn lasting until
// the workflow completes, waits or halts, as a prompt's turn does.

// Permission option ids of a revert's confirmation.
const (
	optRevert = "revert"
	optKeep   = "keep"
)

// workflowCommands are the slash commands workflow mode offers.
var workflowCommands = []sdk.AvailableCommand{
	{Name: "revert", Description: "Undo a pulse of this workflow (and the later pulses that depend on it) as revert commits on its branch, after a confirmation",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "PULSE (pulse-2 or 2)"}}},
	{Name: "redo", Description: "Run a reverted pulse of this workflow again, with optional guidance for its agent",
		Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "PULSE [guidance]"}}},
}

// announceCommands tells the client the slash commands of the session's
// mode (none outside workflow mode).
func (s *session) announceCommands(ctx context.Context) {
	cmds := []sdk.AvailableCommand{}
	if s.mode() == ModeWorkflow {
		cmds = workflowCommands
	}
	s.send(ctx, sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}

// slashCommand splits a prompt that is one of workflow mode's commands:
// its name and the rest of the text; ok is false for any other prompt.
func slashCommand(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	for _, c := range workflowCommands {
		prefix := "/" + c.Name
		if rest, found := strings.CutPrefix(text, prefix); found && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') {
			return c.Name, strings.TrimSpace(rest), true
		}
	}
	return "", "", false
}

// commandTurn runs /revert or /redo on the session's workflow. What the
// person can correct (no workflow yet, an unknown pulse, a running
// workflow) is said in the turn, which ends normally.
func (s *session) commandTurn(ctx context.Context, name, args string) error {
	id := s.record().WorkflowID
	if id == "" {
		return s.say(ctx, fmt.Sprintf("This session has no workflow yet: send a task to start one; /%s works on its pulses once they ran.", name))
	}
	pulse, guidance, _ := strings.Cut(args, " ")
	if pulse == "" {
		return s.say(ctx, fmt.Sprintf("Say which pulse: /%s pulse-2 (or /%s 2)%s.", name, name, map[string]string{"redo": ", optionally followed by guidance for its agent", "revert": ""}[name]))
	}
	if name == "redo" {
		return s.redo(ctx, id, pulse, strings.TrimSpace(guidance))
	}
	return s.revert(ctx, id, pulse)
}

// revert asks for the confirmation of a revert's plan, then reverts.
func (s *session) revert(ctx context.Context, id, pulse string) error {
	plan, err := s.f.app.PlanRevert(ctx, editor.RevertPulseParams{WorkflowID: id, Pulse: pulse})
	if err != nil {
		return s.refused(ctx, "cannot revert "+pulse, err)
	}
	ok, err := s.confirmRevert(ctx, plan)
	if err != nil || !ok {
		if err == nil {
			err = s.say(ctx, fmt.Sprintf("Nothing was reverted: %s stays as it is.", plan.Workflow))
		}
		return err
	}
	res, err := s.f.app.RevertPulse(ctx, editor.RevertPulseParams{WorkflowID: id, Pulse: pulse, Applied: plan.AppliedTo != ""})
	if err != nil {
		return s.refused(ctx, "the revert failed", err)
	}
	s.sendPlanOf(ctx, id)
	return s.say(ctx, fmt.Sprintf("Reverted %s of %s on %s (%d revert commit(s); the pulses are pending again with their instructions). Send /redo %s [guidance] to run it again, or any message to resume the workflow.",
		strings.Join(pulseIDs(res.Plan), ", "), res.Plan.Workflow, res.Plan.Branch, len(res.Commits), res.Plan.Pulse)+appliedNote(res.Plan))
}

// confirmRevert asks, as a permission request, whether to undo what plan
// lists.
func (s *session) confirmRevert(ctx context.Context, plan editor.RevertPlanView) (bool, error) {
	callID := s.calls.next("revert")
	title := fmt.Sprintf("Revert %s of %s", strings.Join(pulseIDs(plan), ", "), plan.Workflow)
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(revertText(plan)))}
	s.send(ctx, sdk.StartToolCall(callID, title, sdk.WithStartKind(sdk.ToolKindEdit), sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(content)))
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: s.id(),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: callID, Title: sdk.Ptr(title), Content: content},
		Options: []sdk.PermissionOption{
			{OptionId: optRevert, Name: "Revert", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: optKeep, Name: "Keep the pulses", Kind: sdk.PermissionOptionKindRejectOnce},
		}})
	if err != nil {
		if ctx.Err() != nil {
			return false, nil
		}
		return false, fmt.Errorf("session/request_permission: %w", err)
	}
	ok := res.Outcome.Selected != nil && string(res.Outcome.Selected.OptionId) == optRevert
	status := sdk.ToolCallStatusCompleted
	if !ok {
		status = sdk.ToolCallStatusFailed
	}
	s.send(ctx, sdk.UpdateToolCall(callID, sdk.WithUpdateStatus(status)))
	return ok, nil
}

// redo records the guidance and resumes the workflow within the turn.
func (s *session) redo(ctx context.Context, id, pulse, guidance string) error {
	e, err := s.f.engine(ctx)
	if err != nil {
		return err
	}
	wf, err := e.MarkRedo(ctx, id, pulse, guidance)
	if err != nil {
		return s.refused(ctx, "cannot redo "+pulse, err)
	}
	s.say(ctx, fmt.Sprintf("Running %s of %s again%s.\n\n", pulse, wf.Name, map[bool]string{true: " with your guidance", false: ""}[guidance != ""]))
	wf, err = e.Resume(ctx, wf.ID)
	return s.workflowEnded(ctx, e, wf, err)
}

// refused says why a command did nothing; a cancelled turn says nothing.
func (s *session) refused(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil
	}
	return s.say(ctx, fmt.Sprintf("Autarch %s: %v", what, err))
}

// sendPlanOf sends the workflow's plan again (its pulses as they stand).
func (s *session) sendPlanOf(ctx context.Context, id string) {
	if e, err := s.f.engine(ctx); err == nil {
		s.sendPlan(ctx, e, id)
	}
}

func pulseIDs(p editor.RevertPlanView) []string {
	ids := make([]string, len(p.Pulses))
	for i, x := range p.Pulses {
		ids[i] = x.ID
	}
	return ids
}

// revertText is what a revert will undo, for its confirmation.
func revertText(p editor.RevertPlanView) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Undoes on branch %s, as revert commits (history is kept; your branch is not touched):\n", p.Branch)
	for _, x := range p.Pulses {
		fmt.Fprintf(&b, "- %s %s (%s)", x.ID, x.Title, strings.ToLower(x.Status))
		if x.Summary != "" {
			fmt.Fprintf(&b, ": %s", x.Summary)
		}
		b.WriteString("\n")
	}
	if len(p.Files) > 0 {
		fmt.Fprintf(&b, "Files: %s\n", strings.Join(p.Files, ", "))
	}
	if p.AppliedTo != "" {
		fmt.Fprintf(&b, "The workflow was already applied to %s, which keeps these changes: merge %s into it again after the revert to bring the revert there.\n", p.AppliedTo, p.Branch)
	}
	return b.String()
}

func appliedNote(p editor.RevertPlanView) string {
	if p.AppliedTo == "" {
		return ""
	}
	return fmt.Sprintf(" %s still has the reverted changes (the workflow was applied to it): merge %s into it again to bring the revert there.", p.AppliedTo, p.Branch)
}
