package acp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// replay sends a loaded session's history as session/update
// notifications: a workflow's or job's from the store, a discussion's from
// the session's record.
func (s *session) replay(ctx context.Context) error {
	rec := s.record()
	switch {
	case rec.WorkflowID != "":
		return s.replayWorkflow(ctx, rec.WorkflowID)
	case rec.JobID != "":
		return s.replayJob(ctx, rec.JobID)
	}
	for _, l := range rec.Discussion {
		s.send(ctx, chunk(l.Role, l.Text))
	}
	return nil
}

// rejoin marks a session reopened from its record (loaded or resumed after
// a close or a restart) or forked: its discussion thread starts afresh and
// gets the discussion with the next prompt.
func (s *session) rejoin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reloaded = len(s.rec.Discussion) > 0
}

// Bounds of the discussion a reloaded session hands the discussion agent.
const (
	historyLines = 20
	historyChars = 2000
)

// withHistory is a prompt preceded by the latest lines of an earlier
// discussion, each clipped.
func withHistory(lines []chatLine, prompt string) string {
	var b strings.Builder
	b.WriteString("Earlier in this conversation (before Autarch restarted):\n")
	for _, l := range lines[max(0, len(lines)-historyLines):] {
		text := l.Text
		if r := []rune(text); len(r) > historyChars {
			text = string(r[:historyChars]) + "…"
		}
		fmt.Fprintf(&b, "\n%s: %s\n", l.Role, text)
	}
	b.WriteString("\nNow: " + prompt)
	return b.String()
}

func chunk(role, text string) sdk.SessionUpdate {
	if role == "user" {
		return sdk.UpdateUserMessageText(text)
	}
	return sdk.UpdateAgentMessageText(text)
}

// storedChunk is how a workflow's stored message replays, if at all (ok
// false); prev is the message before it in its agent's conversation and
// shown the prompts replayed so far. The store's user-role messages are
// the agents' inputs, which the engine writes (stage instructions, answers
// and verdicts formatted for the agent, the question rule, nudges), so
// none replays as the user's. What follows an agent's message is either
// the user's reply to it, which replays as the prompt the user wrote, or
// the engine sending the message back (a question asked in prose), which
// is marked as the live session marks it; the other inputs are not shown,
// as they are not live. A session recorded without its prompts cannot
// tell the two apart: neither is shown.
func (s *session) storedChunk(m store.Message, prev *store.Message, shown map[string]bool) (u sdk.SessionUpdate, ok bool) {
	switch {
	case m.Content == "" || m.Role == "tool":
		return u, false
	case m.Role != "user":
		return chunk(m.Role, m.Content+"\n\n"), true
	case prev == nil || prev.Role != "assistant" || prev.Content == "" || len(s.record().Prompts) == 0:
		return u, false
	}
	if p, ok := s.replyIn(m.Content, shown); ok {
		return sdk.UpdateUserMessageText(p + "\n\n"), true
	}
	return sdk.UpdateAgentMessageText(withheldNote + "\n\n"), true
}

// replyIn is the prompt (after the task) an engine input passes on — the
// whole input, or its last lines — and not replayed yet.
func (s *session) replyIn(input string, shown map[string]bool) (string, bool) {
	input = strings.TrimSpace(input)
	prompts := s.record().Prompts
	for _, p := range prompts[min(1, len(prompts)):] {
		p = strings.TrimSpace(p)
		if p != "" && !shown[p] && (input == p || strings.HasSuffix(input, "\n"+p)) {
			shown[p] = true
			return p, true
		}
	}
	return "", false
}

// wrote reports whether text is one of the prompts the user sent.
func (s *session) wrote(text string) bool {
	text = strings.TrimSpace(text)
	for _, p := range s.record().Prompts {
		if strings.TrimSpace(p) == text {
			return true
		}
	}
	return false
}

// replayWorkflow sends the task, then stage by stage the conversation,
// the tool calls with their results and the card; then the plan and what
// the workflow waits for.
func (s *session) replayWorkflow(ctx context.Context, id string) error {
	e, err := s.f.engine(ctx)
	if err != nil {
		return err
	}
	wf, err := e.Find(ctx, id)
	if err != nil {
		return invalidParams("%v", err)
	}
	d, err := e.Detail(ctx, id)
	if err != nil {
		return err
	}
	st := e.Store()
	calls, pulses, err := workflowCalls(ctx, st, id)
	if err != nil {
		return err
	}
	s.send(ctx, sdk.UpdateUserMessageText(wf.Task))
	said := map[string]bool{}  // the agents' messages replayed
	shown := map[string]bool{} // the user's prompts replayed
	cards := map[string]*editor.CardView{"scoping": d.Scope, "research": d.Research, "plan": d.Plan}
	for _, stage := range []workflow.Stage{workflow.StageScoping, workflow.StageResearch, workflow.StagePlan, workflow.StagePreflight, workflow.StagePulsing, workflow.StageReview} {
		msgs, err := st.Messages(ctx, id, string(stage), "")
		if err != nil {
			return err
		}
		if stage == workflow.StagePulsing {
			for _, p := range pulses {
				more, err := st.Messages(ctx, id, string(stage), p.ID)
				if err != nil {
					return err
				}
				msgs = append(msgs, more...)
			}
		}
		s.replayStage(ctx, msgs, calls, string(stage), said, shown)
		if c := cards[string(stage)]; c != nil {
			s.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("**%s** (%s)\n\n%s\n\n", c.Title, c.Status, c.Markdown)))
		}
	}
	if d.Review != nil {
		s.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("**Review** (%s): %s\n\n", d.Review.Recommendation, d.Review.Summary)))
	}
	s.send(ctx, sdk.UpdatePlan(planEntries(d)...))
	for _, p := range d.Pending {
		text := pendingText(p)
		if m := replyMessage(p); m != "" && said[m] {
			// The message to reply to was replayed with its stage's
			// conversation: it is not shown a second time.
			text = replyNote
		}
		s.send(ctx, sdk.UpdateAgentMessageText(text))
	}
	return nil
}

// workflowCalls are a workflow's tool calls in order, its pulses' included.
func workflowCalls(ctx context.Context, st *store.Store, id string) ([]store.ToolCall, []store.Pulse, error) {
	calls, err := st.ToolCalls(ctx, id, "")
	if err != nil {
		return nil, nil, err
	}
	pulses, err := st.WorkflowPulses(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range pulses {
		more, err := st.ToolCalls(ctx, id, p.ID)
		if err != nil {
			return nil, nil, err
		}
		calls = append(calls, more...)
	}
	slices.SortStableFunc(calls, func(a, b store.ToolCall) int { return cmp.Compare(a.ID, b.ID) })
	return calls, pulses, nil
}

// replayStage sends a stage's messages and tool calls in time order,
// noting the agents' messages in said and the user's prompts in shown.
func (s *session) replayStage(ctx context.Context, msgs []store.Message, calls []store.ToolCall, stage string, said, shown map[string]bool) {
	var t timeline
	last := map[string]*store.Message{} // by pulse: each agent's conversation
	for i, m := range msgs {
		u, ok := s.storedChunk(m, last[m.PulseID], shown)
		last[m.PulseID] = &msgs[i]
		if !ok {
			continue
		}
		if m.Role != "user" {
			said[strings.TrimSpace(m.Content)] = true
		}
		t.add(m.CreatedAt, func() { s.send(ctx, u) })
	}
	for _, c := range calls {
		if c.Stage != stage {
			continue
		}
		t.add(c.StartedAt, func() {
			s.replayCall(ctx, c.Name, subagentCallKey(c.ParentCallID, c.CallID), c.Reason, c.Args, c.ResultSummary, c.Failed, !c.EndedAt.IsZero())
		})
	}
	t.play()
}

// timeline is what a replay sends, in the order it happened: a run's
// messages and tool calls are stored apart, each with its time.
type timeline []timed

type timed struct {
	at   time.Time
	send func()
}

func (t *timeline) add(at time.Time, send func()) { *t = append(*t, timed{at, send}) }

// play sends all in time order (what happened at the same time, in the
// order it was added).
func (t timeline) play() {
	slices.SortStableFunc(t, func(a, b timed) int { return a.at.Compare(b.at) })
	for _, it := range t {
		it.send()
	}
}

// replayCall sends a finished call as a tool_call and its
// tool_call_update.
func (s *session) replayCall(ctx context.Context, tool, callID, reason string, args []byte, result string, failed, ended bool) {
	call := s.calls.toolCall(tool, callID, reason, args, s.f.dir)
	s.send(ctx, call)
	if !ended {
		s.calls.finished(tool, callID)
		s.send(ctx, sdk.UpdateToolCall(call.ToolCall.ToolCallId, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed),
			sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("(interrupted: the run ended before this call finished)"))})))
		return
	}
	for _, u := range s.calls.toolResult(tool, callID, result, failed) {
		s.send(ctx, u)
	}
}

// replayJob sends a job's task, then its conversation and tool calls in
// time order.
func (s *session) replayJob(ctx context.Context, id string) error {
	r, err := s.f.jobs(ctx)
	if err != nil {
		return err
	}
	j, err := r.Find(ctx, id)
	if err != nil {
		return invalidParams("%v", err)
	}
	e, err := s.f.engine(ctx)
	if err != nil {
		return err
	}
	st := e.Store()
	msgs, err := st.JobMessages(ctx, j.ID)
	if err != nil {
		return err
	}
	calls, err := st.JobToolCalls(ctx, j.ID)
	if err != nil {
		return err
	}
	s.send(ctx, sdk.UpdateUserMessageText(j.Task))
	var t timeline
	for i, m := range msgs {
		switch {
		case m.Content == "" || m.Role == "tool" || i == 0 && m.Role == "user": // the task is sent above
			continue
		case m.Role == "user" && !s.wrote(m.Content): // the engine's (see storedChunk)
			continue
		}
		t.add(m.CreatedAt, func() { s.send(ctx, chunk(m.Role, m.Content+"\n\n")) })
	}
	for _, c := range calls {
		t.add(c.StartedAt, func() { s.replayCall(ctx, c.Name, c.CallID, c.Reason, nil, c.Summary, c.Failed, !c.EndedAt.IsZero()) })
	}
	t.play()
	s.send(ctx, sdk.UpdateAgentMessageText(fmt.Sprintf("Job %s is %s%s.", j.Name, j.Status, suffix(j.StatusReason))))
	return nil
}
