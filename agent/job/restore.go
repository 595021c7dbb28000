package job

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools/team"
)

func modeOf(j store.Job) team.Mode { return team.Mode(j.Mode) }

// requestHumanReview is the team tool that escalates.
const requestHumanReview = "request_human_review"

// restore reads the job's conversation back and completes what a dead
// process left open, without running anything again: each call of the
// last assistant message that has no result gets one saying what is
// known of it (an escalation's answer, asked again when still pending,
// when it is request_human_review); answers to escalations the agent has
// not received are given to it. What restore adds is persisted.
func (r *Runner) restore(ctx context.Context, h *handle) ([]agent.Message, error) {
	recs, err := r.store.JobMessages(ctx, h.job.ID)
	if err != nil {
		return nil, err
	}
	history := make([]agent.Message, 0, len(recs))
	for _, m := range recs {
		msg := agent.Message{Role: m.Role, Content: m.Content}
		if len(m.Data) > 0 {
			var d messageData
			if err := json.Unmarshal(m.Data, &d); err != nil {
				return nil, fmt.Errorf("job %s message %d: %w", h.job.ID, m.ID, err)
			}
			msg.ToolCalls, msg.ToolCallID = d.ToolCalls, d.ToolCallID
		}
		history = append(history, msg)
	}
	add := func(m agent.Message) error {
		history = append(history, m)
		return r.save(ctx, h.job.ID, m)
	}
	open := openCalls(history)
	if len(open) > 0 {
		calls, err := r.store.JobToolCalls(ctx, h.job.ID)
		if err != nil {
			return nil, err
		}
		byID := map[string]store.JobToolCall{}
		for _, c := range calls {
			byID[c.CallID] = c
		}
		for _, c := range open {
			content, err := r.lostResult(ctx, h, c, byID)
			if err != nil {
				return nil, err
			}
			if err := add(agent.Message{Role: agent.RoleTool, ToolCallID: c.ID, Content: content}); err != nil {
				return nil, err
			}
		}
	}
	answers, err := r.undelivered(ctx, h.job)
	if err != nil {
		return nil, err
	}
	for _, e := range answers {
		text := fmt.Sprintf("A human answered your request for review %s (%q): %s. Follow the answer.", e.ID, clip(e.Reason, 200), answerWords(e.Approved, e.Feedback))
		if err := add(agent.Message{Role: agent.RoleUser, Content: text}); err != nil {
			return nil, err
		}
		if err := r.store.DeliverJobEscalation(ctx, e.ID); err != nil {
			return nil, err
		}
	}
	return history, nil
}

// openCalls are the calls of the last assistant message that have no
// result in the messages after it.
func openCalls(history []agent.Message) []agent.ToolCall {
	last := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == agent.RoleAssistant {
			last = i
			break
		}
	}
	if last < 0 {
		return nil
	}
	answered := map[string]bool{}
	for _, m := range history[last+1:] {
		if m.Role == agent.RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	var open []agent.ToolCall
	for _, c := range history[last].ToolCalls {
		if !answered[c.ID] {
			open = append(open, c)
		}
	}
	return open
}

// lostResult is the result given for a call whose result was lost.
func (r *Runner) lostResult(ctx context.Context, h *handle, c agent.ToolCall, calls map[string]store.JobToolCall) (string, error) {
	if c.Name == requestHumanReview {
		if content, ok, err := r.escalationResult(ctx, h); ok || err != nil {
			return content, err
		}
	}
	rec, started := calls[c.ID]
	var msg string
	switch {
	case !started:
		msg = "Not run: the job was interrupted before this call started. Call it again if it is still needed."
	case rec.EndedAt.IsZero():
		msg = "The job was interrupted while this call ran, so it may have taken effect in part or whole; it was not run again. Check the current state (get_repo_state, read_file) before repeating it."
	default:
		msg = "This call ran before the job was interrupted, but its result was lost; it was not run again. What is known of its result: " + rec.Summary
		if rec.Failed {
			msg += " (it failed)"
		}
	}
	b, _ := json.Marshal(map[string]any{"interrupted": true, "error": msg})
	return string(b), nil
}

// escalationResult answers an interrupted request_human_review with its
// escalation's answer, asking the human again while it is pending; ok is
// false when the job has no escalation left to answer it with.
func (r *Runner) escalationResult(ctx context.Context, h *handle) (string, bool, error) {
	list, err := r.store.JobEscalations(ctx, h.job.ID)
	if err != nil || len(list) == 0 {
		return "", false, err
	}
	e := list[len(list)-1]
	if e.Delivered {
		return "", false, nil
	}
	if e.Status == store.EscalationPending {
		approved, feedback, err := r.ask(ctx, h.job, e)
		if err != nil {
			return "", false, err
		}
		e.Approved, e.Feedback = approved, feedback
	} else if err := r.store.DeliverJobEscalation(ctx, e.ID); err != nil {
		return "", false, err
	}
	decision := "rejected"
	if e.Approved {
		decision = "approved"
	}
	b, _ := json.Marshal(map[string]any{"escalated": true, "escalationId": e.ID,
		"humanResponse": map[string]any{"approved": e.Approved, "decision": decision, "feedback": e.Feedback}})
	return string(b), true, nil
}

// undelivered are the job's answered escalations the agent has not been
// given; a pending one is asked again (ErrWaiting when no one answers).
func (r *Runner) undelivered(ctx context.Context, j store.Job) ([]store.JobEscalation, error) {
	list, err := r.store.JobEscalations(ctx, j.ID)
	if err != nil {
		return nil, err
	}
	var out []store.JobEscalation
	for _, e := range list {
		switch {
		case e.Delivered:
		case e.Status == store.EscalationAnswered:
			out = append(out, e)
		default:
			approved, feedback, err := r.ask(ctx, j, e)
			if err != nil {
				return nil, err
			}
			e.Approved, e.Feedback, e.Delivered = approved, feedback, true
			out = append(out, e)
		}
	}
	return out, nil
}
