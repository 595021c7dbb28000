package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// handle is a running job as the team tools see it (team.Job): what they
// do is recorded in the store and announced.
type handle struct {
	r      *Runner
	job    store.Job
	cancel context.CancelCauseFunc
}

var _ team.Job = (*handle)(nil)

func (h *handle) ID() string         { return h.job.ID }
func (h *handle) Mode() team.Mode    { return team.Mode(h.job.Mode) }
func (h *handle) BaseCommit() string { return h.job.BaseCommit }

func (h *handle) BranchCreated(ctx context.Context, branch, base string) error {
	if err := h.r.store.SetJobBranch(context.WithoutCancel(ctx), h.job.ID, branch); err != nil {
		return err
	}
	h.job.Branch = branch
	h.r.emit(editor.JobEvent{Kind: "branch", JobID: h.job.ID, Text: fmt.Sprintf("on branch %s (from %s)", branch, base)})
	return nil
}

func (h *handle) RecordAnalysis(ctx context.Context, a team.Analysis) (string, error) {
	rec := store.JobAnalysis{JobID: h.job.ID, Findings: a.Findings, Files: a.Files, Complexity: a.Complexity, Risks: a.Risks}
	if err := h.r.store.AddJobAnalysis(context.WithoutCancel(ctx), &rec); err != nil {
		return "", err
	}
	h.r.emit(editor.JobEvent{Kind: "analysis", JobID: h.job.ID, Text: clip(a.Findings, 200)})
	return rec.ID, nil
}

func (h *handle) SavePlan(ctx context.Context, p team.Plan) (string, error) {
	steps, err := json.Marshal(p.Steps)
	if err != nil {
		return "", err
	}
	rec := store.JobPlan{JobID: h.job.ID, Steps: steps, EstimatedSteps: p.EstimatedSteps, EstimatedTokens: p.EstimatedTokens}
	if err := h.r.store.AddJobPlan(context.WithoutCancel(ctx), &rec); err != nil {
		return "", err
	}
	h.r.emit(editor.JobEvent{Kind: "plan", JobID: h.job.ID, Text: fmt.Sprintf("plan of %d steps", len(p.Steps))})
	return rec.ID, nil
}

func (h *handle) Committed(ctx context.Context, c team.Commit) error {
	rec := store.JobCommit{JobID: h.job.ID, Hash: c.Hash, Message: c.Message, Branch: c.Branch, Files: c.Files}
	if err := h.r.store.AddJobCommit(context.WithoutCancel(ctx), &rec); err != nil {
		return err
	}
	h.r.emit(editor.JobEvent{Kind: "commit", JobID: h.job.ID, Text: fmt.Sprintf("%.8s %s (%s)", c.Hash, firstLine(c.Message), c.Branch)})
	h.writeReceipt(ctx, c)
	return nil
}

// Escalate records the escalation and asks the human; a prompt closed
// without an answer (or no one to ask) leaves the job Waiting: the run
// ends, and the answer reaches the agent when the job is resumed.
func (h *handle) Escalate(ctx context.Context, e team.Escalation) (string, bool, string, error) {
	rec := store.JobEscalation{JobID: h.job.ID, Reason: e.Reason, Severity: e.Severity, Context: e.Context}
	if err := h.r.store.AddJobEscalation(context.WithoutCancel(ctx), &rec); err != nil {
		return "", false, "", err
	}
	h.r.emit(editor.JobEvent{Kind: "escalation", JobID: h.job.ID, Status: store.EscalationPending, Text: e.Reason})
	approved, feedback, err := h.r.ask(ctx, h.job, rec)
	if errors.Is(err, ErrWaiting) {
		h.cancel(ErrWaiting)
	}
	return rec.ID, approved, feedback, err
}

// ask asks the human to answer an escalation and records the answer as
// delivered (the caller hands it to the agent).
func (r *Runner) ask(ctx context.Context, j store.Job, e store.JobEscalation) (bool, string, error) {
	if err := r.setStatus(ctx, j, store.JobWaiting, "waiting for a human review: "+clip(e.Reason, 200)); err != nil {
		return false, "", err
	}
	v, err := r.cfg.Editor.Approve(ctx, escalationApproval(j, e))
	if errors.Is(err, editor.ErrNoTTY) || err == nil && (v.Decision == editor.DecisionDismissed || v.Decision == "") {
		return false, "", ErrWaiting
	}
	if err != nil {
		return false, "", fmt.Errorf("ask for a human review: %w", err)
	}
	approved := v.Decision == editor.DecisionApprove || v.Decision == editor.DecisionAlwaysAllow
	err = r.store.Update(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		if err := tx.AnswerJobEscalation(ctx, e.ID, approved, strings.TrimSpace(v.Feedback)); err != nil {
			return err
		}
		if err := tx.DeliverJobEscalation(ctx, e.ID); err != nil {
			return err
		}
		return tx.SetJobStatus(ctx, j.ID, store.JobRunning, "")
	})
	if err != nil {
		return false, "", err
	}
	r.emit(editor.JobEvent{Kind: "escalation", JobID: j.ID, Status: store.EscalationAnswered, Text: answerWords(approved, v.Feedback)})
	r.emit(editor.JobEvent{Kind: "status", JobID: j.ID, Status: string(store.JobRunning)})
	return approved, strings.TrimSpace(v.Feedback), nil
}

// escalationApproval is how an escalation is shown: an approval with the
// reason, severity and context.
func escalationApproval(j store.Job, e store.JobEscalation) editor.Approval {
	sev := e.Severity
	if sev == "" {
		sev = "medium"
	}
	detail := "Task: " + j.Task + "\n\nReason: " + e.Reason + "\n\nSeverity: " + sev
	if len(e.Context) > 0 && string(e.Context) != "null" {
		detail += "\n\nContext:\n\n```json\n" + string(e.Context) + "\n```"
	}
	return editor.Approval{Kind: editor.ApprovalEscalation, Title: fmt.Sprintf("Job %s asks for a human review (%s severity)", j.Name, sev),
		Detail: detail, Reason: e.Reason, JobID: j.ID, EscalationID: e.ID, Severity: sev, Context: string(e.Context)}
}

// logEvent records an event a tool reports (ToolContext.LogEvent).
func (h *handle) logEvent(ctx context.Context, e tools.ToolEvent) error {
	h.r.log.Debug("job tool event", "job", h.job.ID, "tool", e.Tool, "kind", e.Kind, "data", e.Data)
	return nil
}

// observe records the agent's tool calls as they start and end and
// announces its activity.
func (h *handle) observe(ctx context.Context, ev agent.Event) {
	ctx = context.WithoutCancel(ctx)
	st := h.r.store
	switch ev.Kind {
	case "tool_call":
		if err := st.StartJobToolCall(ctx, &store.JobToolCall{JobID: h.job.ID, CallID: ev.CallID, Name: ev.Tool, Reason: ev.Reason}); err != nil {
			h.r.log.Warn("record job tool call", "err", err)
		}
	case "tool_result":
		if err := st.FinishJobToolCall(ctx, h.job.ID, ev.CallID, ev.Text, run.OutcomeOf(ev)); err != nil {
			h.r.log.Warn("record job tool result", "err", err)
		}
	case "text":
		if d := h.r.cfg.Deltas; d != nil && ev.Parent == "" {
			d(editor.JobEvent{Kind: ev.Kind, JobID: h.job.ID, Text: ev.Text})
		}
		return
	}
	h.r.emit(editor.JobEvent{Kind: ev.Kind, JobID: h.job.ID, Tool: ev.Tool, Reason: ev.Reason, Text: ev.Text, Failed: ev.Failed, ToolCallID: ev.CallID})
}

// messageData is a stored message's structured part.
type messageData struct {
	ToolCalls  []agent.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// persist stores a message of the conversation as it is appended.
func (h *handle) persist(ctx context.Context, m agent.Message) {
	if err := h.r.save(context.WithoutCancel(ctx), h.job.ID, m); err != nil {
		h.r.log.Error("persist job message", "job", h.job.ID, "err", err)
	}
}

func (r *Runner) save(ctx context.Context, jobID string, m agent.Message) error {
	rec := store.JobMessage{JobID: jobID, Role: m.Role, Content: m.Content}
	if len(m.ToolCalls) > 0 || m.ToolCallID != "" {
		b, err := json.Marshal(messageData{ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID})
		if err != nil {
			return err
		}
		rec.Data = b
	}
	return r.store.AddJobMessage(ctx, &rec)
}
