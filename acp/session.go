package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// session is one ACP session: a mode over a folder, the workflow or job
// it drives, and the turn that runs.
type session struct {
	a     *Agent
	f     *folder
	calls *callTracker

	mu   sync.Mutex
	rec  record
	turn *turn
	// streamed holds, per agent (streamKey), that its text since its last
	// tool call was streamed: its message event then adds nothing.
	// Parallel pulses' agents stream at once, each under its own key.
	streamed map[string]bool
	// cost is what the session's model calls cost in this process.
	cost float64
	// reloaded is set when a discussion was replayed after a restart: the
	// discussion agent, which starts afresh, gets it with the next prompt.
	reloaded bool
	// closed is set by session/close: no turn begins any more.
	closed bool
	// threaded is set once the session talked to the discussion agent,
	// in its own thread (its id): close ends the thread.
	threaded bool
}

// turn is a running session/prompt.
type turn struct {
	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
	usage   sdk.Usage
}

func (s *session) id() sdk.SessionId { return sdk.SessionId(s.record().ID) }

func (s *session) record() record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

func (s *session) mode() Mode { return s.record().Mode }

func (s *session) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn != nil
}

// update changes the record and saves it.
func (s *session) update(ctx context.Context, fn func(*record)) {
	s.mu.Lock()
	fn(&s.rec)
	s.mu.Unlock()
	if err := s.save(ctx); err != nil {
		s.a.log.Warn("acp session not recorded", "session", s.rec.ID, "err", err)
	}
}

func (s *session) save(ctx context.Context) error {
	return s.f.save(context.WithoutCancel(ctx), s.record())
}

// setMode switches the mode; a session bound to a workflow or a job keeps
// its mode (a new session starts other work).
func (s *session) setMode(ctx context.Context, m Mode) error {
	if !m.known() {
		return invalidParams("unknown mode %q: use discuss, workflow, job or job-genius", m)
	}
	rec := s.record()
	if rec.Mode == m {
		return nil
	}
	if rec.WorkflowID != "" || rec.JobID != "" {
		return invalidRequest("session %s drives %s: its mode stays %s; start a new session for another mode", rec.ID, boundTo(rec), rec.Mode)
	}
	if s.running() {
		return invalidRequest("session %s is running a turn: wait for it, or send session/cancel, before changing the mode", rec.ID)
	}
	s.update(ctx, func(r *record) { r.Mode = m })
	err := s.send(ctx, sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m)}})
	s.announceCommands(ctx)
	return err
}

func boundTo(rec record) string {
	if rec.WorkflowID != "" {
		return "workflow " + rec.WorkflowID
	}
	return "job " + rec.JobID
}

// prompt runs one turn. A second prompt while one runs is refused (the
// first is not cancelled); the turn runs on its own context so that only
// session/cancel or the connection's end stops it.
func (s *session) prompt(ctx context.Context, text string) (sdk.PromptResponse, error) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	t, err := s.begin(cancel)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer s.end(t)
	s.f.began()
	s.title(ctx, text)
	mode := s.mode()
	jobMode, isJob := mode.jobMode()
	if mode == ModeWorkflow || isJob {
		s.update(ctx, func(r *record) { r.Prompts = append(r.Prompts, text) })
	}
	name, args, command := slashCommand(text)
	switch {
	case mode == ModeWorkflow && command:
		err = s.commandTurn(ctx, name, args)
	case mode == ModeWorkflow:
		err = s.workflowTurn(ctx, text)
	case isJob:
		err = s.jobTurn(ctx, text, jobMode)
	default:
		err = s.discussTurn(ctx, text)
	}
	return s.response(t, err)
}

// title names the session after its first prompt.
func (s *session) title(ctx context.Context, text string) {
	s.mu.Lock()
	first := s.rec.Title == ""
	s.mu.Unlock()
	if !first {
		return
	}
	title := shorten(text, 80)
	s.update(ctx, func(r *record) { r.Title = title })
	s.send(ctx, sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{Title: &title}})
}

// response is how a turn ended: cancelled, an error the client can read,
// or the end of the turn with its usage.
func (s *session) response(t *turn, err error) (sdk.PromptResponse, error) {
	s.mu.Lock()
	stopped, usage := t.stopped, t.usage
	s.mu.Unlock()
	res := sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}
	if usage.TotalTokens > 0 {
		res.Usage = &usage
	}
	switch {
	case stopped:
		res.StopReason = sdk.StopReasonCancelled
		return res, nil
	case err != nil:
		var re *sdk.RequestError
		if errors.As(err, &re) {
			return res, re
		}
		return res, &sdk.RequestError{Code: -32603, Message: err.Error()}
	}
	return res, nil
}

// begin marks a turn running; cancel ends its context.
func (s *session) begin(cancel context.CancelFunc) (*turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, invalidRequest("session %s was closed: reopen it with session/load or session/resume", s.rec.ID)
	}
	if s.turn != nil {
		return nil, invalidRequest("session %s is still running a turn: wait for its answer, or send session/cancel first", s.rec.ID)
	}
	s.turn = &turn{cancel: cancel, done: make(chan struct{})}
	return s.turn, nil
}

func (s *session) end(t *turn) {
	s.mu.Lock()
	s.turn = nil
	s.mu.Unlock()
	close(t.done)
}

// stop ends the running turn: a workflow is stopped as autarch stop does
// (its pulse work kept as a recovery checkpoint), a job likewise.
func (s *session) stop(ctx context.Context, reason string) {
	s.mu.Lock()
	t, rec := s.turn, s.rec
	if t != nil {
		t.stopped = true
	}
	s.mu.Unlock()
	if t == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	switch {
	case rec.Mode == ModeWorkflow && rec.WorkflowID != "":
		if e, err := s.f.engine(ctx); err == nil {
			if err := e.Stop(ctx, rec.WorkflowID, reason); err != nil {
				s.a.log.Warn("stop workflow", "workflow", rec.WorkflowID, "err", err)
			}
		}
	case rec.JobID != "":
		if r, err := s.f.jobs(ctx); err == nil {
			if err := r.Stop(ctx, rec.JobID, reason); err != nil {
				s.a.log.Warn("stop job", "job", rec.JobID, "err", err)
			}
		}
	}
	t.cancel()
}

// close stops the running turn as session/cancel does, lets no other
// begin and waits at most wait for it to end.
func (s *session) close(ctx context.Context, wait time.Duration) {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop(ctx, "the session was closed from the editor (session/close)")
	s.waitTurn(wait)
	s.mu.Lock()
	threaded, id := s.threaded, s.rec.ID
	s.mu.Unlock()
	if threaded {
		if e, err := s.f.engine(ctx); err == nil {
			e.EndThread(id)
		}
	}
}

// waitTurn waits at most d for the running turn to end.
func (s *session) waitTurn(d time.Duration) {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t == nil {
		return
	}
	select {
	case <-t.done:
	case <-time.After(d):
	}
}

// discussTurn sends the prompt to the discussion agent; its answer and
// tool calls arrive as events.
func (s *session) discussTurn(ctx context.Context, text string) error {
	e, err := s.f.engine(ctx)
	if err != nil {
		return err
	}
	s.f.setDiscussing(s)
	defer s.f.setDiscussing(nil)
	s.mu.Lock()
	input, thread := text, s.rec.ID
	if s.reloaded {
		input = withHistory(s.rec.Discussion, text)
		s.reloaded = false
	}
	s.threaded = true
	s.mu.Unlock()
	answer, err := e.DiscussIn(ctx, thread, input)
	if err != nil {
		return err
	}
	s.update(ctx, func(r *record) {
		r.Discussion = append(r.Discussion, chatLine{Role: "user", Text: text}, chatLine{Role: "assistant", Text: answer})
	})
	return nil
}

// workflowTurn starts the session's workflow with the prompt as its task,
// or answers what it waits for and resumes it; the turn lasts until the
// workflow completes, waits for the user, halts or is stopped.
func (s *session) workflowTurn(ctx context.Context, text string) error {
	e, err := s.f.engine(ctx)
	if err != nil {
		return err
	}
	id := s.record().WorkflowID
	if id == "" {
		wf, err := e.Start(ctx, workflow.Task{Text: text})
		if err != nil {
			return invalidParams("%v", err)
		}
		s.update(ctx, func(r *record) { r.WorkflowID = wf.ID })
		s.say(ctx, fmt.Sprintf("Workflow %s started (id %s, branch %s); `autarch status` lists it.\n\n", wf.Name, wf.ID, wf.WorkflowBranch))
		wf, err = e.Run(ctx, wf.ID)
		return s.workflowEnded(ctx, e, wf, err)
	}
	wf, err := e.Find(ctx, id)
	if err != nil {
		return invalidParams("%v", err)
	}
	switch wf.Status {
	case store.WorkflowCompleted, store.WorkflowAbandoned:
		return s.say(ctx, fmt.Sprintf("Workflow %s is %s: start a new session for a new task.", wf.Name, strings.ToLower(string(wf.Status))))
	case store.WorkflowAwaitingUser:
		if err := s.answerPending(ctx, e, wf, text); err != nil {
			return err
		}
	}
	wf, err = e.Resume(ctx, id)
	return s.workflowEnded(ctx, e, wf, err)
}

// answerPending answers the workflow's open question or card with the
// prompt's text.
func (s *session) answerPending(ctx context.Context, e *workflow.Engine, wf store.Workflow, text string) error {
	d, err := e.Detail(ctx, wf.ID)
	if err != nil || len(d.Pending) == 0 {
		return err
	}
	p := d.Pending[0]
	switch p.Kind {
	case "questions", "reply":
		answers, err := answersFor(p, text)
		if err != nil {
			return err
		}
		if err := e.AnswerPending(ctx, wf.ID, p.ID, answers); err != nil {
			return invalidParams("%v", err)
		}
	default:
		if err := e.DecidePending(ctx, wf.ID, p.ID, verdictFromText(text)); err != nil {
			return invalidParams("%v", err)
		}
	}
	return nil
}

// workflowEnded tells the user how the run ended and what to do next.
func (s *session) workflowEnded(ctx context.Context, e *workflow.Engine, wf store.Workflow, err error) error {
	var h *workflow.Halt
	switch {
	case errors.Is(err, workflow.ErrWaiting):
		return s.sayPending(ctx, e, wf.ID)
	case errors.As(err, &h):
		return s.say(ctx, fmt.Sprintf("\n\nWorkflow %s halted: %s — send a prompt to resume it.", wf.Name, h.Error()))
	case err != nil && ctx.Err() != nil:
		return nil
	case err != nil:
		return err
	}
	s.sendPlan(ctx, e, wf.ID)
	switch wf.Status {
	case store.WorkflowCompleted:
		review := ""
		if d, err := e.Detail(ctx, wf.ID); err == nil && d.Review != nil {
			review = fmt.Sprintf(" Its review recommends %s%s.", strings.ReplaceAll(d.Review.Recommendation, "_", " "), suffix(firstLine(d.Review.Summary)))
		}
		return s.say(ctx, fmt.Sprintf("\n\nWorkflow %s completed: its work is on branch %s (your tree is unchanged); merge it when you are ready.%s", wf.Name, wf.WorkflowBranch, review))
	case store.WorkflowStopped, store.WorkflowHalted, store.WorkflowFailed:
		return s.say(ctx, fmt.Sprintf("\n\nWorkflow %s is %s (%s): send a prompt to resume it.", wf.Name, strings.ToLower(string(wf.Status)), wf.StatusReason))
	}
	return nil
}

// sayPending shows what the workflow waits for; the next prompt answers.
func (s *session) sayPending(ctx context.Context, e *workflow.Engine, id string) error {
	d, err := e.Detail(ctx, id)
	if err != nil {
		return err
	}
	for _, p := range d.Pending {
		text := pendingText(p)
		if p.Kind == "reply" {
			// The agent's message reached the user in this turn, as it was
			// written, just before the workflow began to wait for a reply.
			text = replyNote
		}
		if err := s.say(ctx, "\n\n"+text); err != nil {
			return err
		}
	}
	return nil
}

// jobTurn starts the session's job with the prompt as its task, or
// answers its escalation and resumes it; a new job runs in mode
// (mechanic or genius).
func (s *session) jobTurn(ctx context.Context, text, mode string) error {
	r, err := s.f.jobs(ctx)
	if err != nil {
		return err
	}
	id := s.record().JobID
	if id == "" {
		j, err := r.Start(ctx, job.Task{Text: text, Mode: mode})
		if err != nil {
			return invalidParams("%v", err)
		}
		s.update(ctx, func(rec *record) { rec.JobID = j.ID })
		s.say(ctx, fmt.Sprintf("Job %s started (id %s, %s mode); `autarch status` lists it.\n\n", j.Name, j.ID, j.Mode))
		j, err = r.Run(ctx, j.ID)
		return s.jobEnded(ctx, j, err)
	}
	j, err := r.Find(ctx, id)
	if err != nil {
		return invalidParams("%v", err)
	}
	if j.Status == store.JobDone {
		return s.say(ctx, fmt.Sprintf("Job %s is done (%s): start a new session for a new task.", j.Name, j.StatusReason))
	}
	if j.Status == store.JobWaiting {
		sum, err := r.Summary(ctx, id)
		if err != nil {
			return err
		}
		for _, esc := range sum.Escalations {
			if esc.Status == "Pending" {
				v := verdictFromText(text)
				if j, err = r.AnswerEscalation(ctx, id, esc.ID, v.Decision == editor.DecisionApprove, v.Feedback); err != nil {
					return invalidParams("%v", err)
				}
				break
			}
		}
		if j.Status == store.JobDone {
			return s.jobEnded(ctx, j, nil)
		}
	}
	j, err = r.Resume(ctx, id)
	return s.jobEnded(ctx, j, err)
}

// jobEnded tells the user how the job's run ended.
func (s *session) jobEnded(ctx context.Context, j store.Job, err error) error {
	switch {
	case errors.Is(err, job.ErrWaiting):
		return s.say(ctx, fmt.Sprintf("\n\nJob %s waits for your review: reply \"approve\", or say what to change.", j.Name))
	case err != nil && ctx.Err() != nil:
		return nil
	case err != nil:
		return err
	case j.Status == store.JobDone:
		return s.say(ctx, fmt.Sprintf("\n\nJob %s is done (%s) on branch %s.", j.Name, j.StatusReason, j.Branch))
	case j.Status == store.JobStopped || j.Status == store.JobFailed:
		return s.say(ctx, fmt.Sprintf("\n\nJob %s is %s (%s): send a prompt to resume it.", j.Name, strings.ToLower(string(j.Status)), j.StatusReason))
	}
	return nil
}

// say streams a message chunk of the agent.
func (s *session) say(ctx context.Context, text string) error {
	return s.send(ctx, sdk.UpdateAgentMessageText(text))
}

// send delivers one session/update.
func (s *session) send(ctx context.Context, u sdk.SessionUpdate) error {
	err := s.a.client().SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: s.id(), Update: u})
	if err != nil {
		s.a.log.Debug("session/update not delivered", "session", s.id(), "err", err)
	}
	return err
}

// approve asks through session/request_permission. A card's "request
// changes" leaves it pending: the next prompt says what to change.
func (s *session) approve(ctx context.Context, a editor.Approval) (editor.Verdict, error) {
	call := s.calls.forApproval(a)
	if call.start != nil {
		s.send(ctx, *call.start)
	}
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: s.id(), ToolCall: call.update, Options: permissionOptions(a)})
	if err != nil {
		if ctx.Err() != nil {
			return editor.Verdict{Decision: editor.DecisionDismissed}, nil
		}
		return editor.Verdict{}, fmt.Errorf("session/request_permission: %w", err)
	}
	v := verdict(res)
	if call.start != nil {
		status := sdk.ToolCallStatusCompleted
		if v.Decision != editor.DecisionApprove && v.Decision != editor.DecisionAlwaysAllow {
			status = sdk.ToolCallStatusFailed
		}
		s.send(ctx, sdk.UpdateToolCall(call.update.ToolCallId, sdk.WithUpdateStatus(status)))
	}
	return v, nil
}

// ask asks one single-choice question as permission options; other
// questions are left pending (the turn ends with them as a message).
func (s *session) ask(ctx context.Context, qs []editor.Question) ([]editor.Answer, error) {
	if len(qs) != 1 || qs[0].Type != editor.SingleSelect || len(qs[0].Options) == 0 {
		return dismissedAll(len(qs)), nil
	}
	choice, err := s.choose(ctx, qs[0].Prompt, qs[0].Options)
	if err != nil || choice == "" {
		return dismissedAll(1), err
	}
	return []editor.Answer{{Values: []string{choice}}}, nil
}

// choose offers choices as permission options and returns the chosen one
// ("" when the client cancelled).
func (s *session) choose(ctx context.Context, prompt string, choices []string) (string, error) {
	id := s.calls.next("question")
	s.send(ctx, sdk.StartToolCall(id, prompt, sdk.WithStartKind(sdk.ToolKindThink), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
	res, err := s.a.client().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: s.id(),
		ToolCall: sdk.ToolCallUpdate{ToolCallId: id, Title: sdk.Ptr(prompt)}, Options: choiceOptions(choices)})
	if err != nil {
		if ctx.Err() != nil {
			return "", nil
		}
		return "", fmt.Errorf("session/request_permission: %w", err)
	}
	choice := chosen(res, choices)
	status := sdk.ToolCallStatusCompleted
	if choice == "" {
		status = sdk.ToolCallStatusFailed
	}
	s.send(ctx, sdk.UpdateToolCall(id, sdk.WithUpdateStatus(status), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(orDash(choice)))})))
	return choice, nil
}

// The keys of streamed: one per agent whose text streams.
const jobStream = "job"

// streamKey names a workflow agent: its stage and pulse.
func streamKey(stage, pulseID string) string { return stage + "/" + pulseID }

// stream sends a piece of an agent's text as it arrives; key names the
// agent (streamKey, jobStream).
func (s *session) stream(ctx context.Context, key, text string) {
	if text == "" {
		return
	}
	s.mu.Lock()
	if s.streamed == nil {
		s.streamed = map[string]bool{}
	}
	s.streamed[key] = true
	s.mu.Unlock()
	s.say(ctx, text)
}

// workflowDelta streams a piece of a workflow agent's message.
//
// A message that ends the agent's turn with a question asked in prose goes
// back to the agent (the engine's question rule: questions reach the user
// only through ask_questions) and never arrives as a message event. Its
// text was streamed by then: holding text back until the engine decides
// would mean holding each message's last paragraph, and models write a
// paragraph as one line, so most messages would arrive whole at their end,
// which is what streaming is meant to end. The text streams as it is
// written; a withheld message is then marked so that the user knows not to
// answer it (the agent asks again through ask_questions, or decides).
func (s *session) workflowDelta(ctx context.Context, d workflow.Delta) {
	key := streamKey(d.Stage, d.PulseID)
	if !d.Withheld {
		s.stream(ctx, key, d.Text)
		return
	}
	s.mu.Lock()
	streamed := s.streamed[key]
	delete(s.streamed, key)
	s.mu.Unlock()
	if streamed {
		s.say(ctx, "\n\n"+withheldNote+"\n\n")
	}
}

// withheldNote marks a streamed message the engine sent back to its agent.
const withheldNote = "_(Autarch sent this question back to the agent: questions come through ask_questions, so there is nothing to answer here.)_"

// wasStreamed reports whether an agent message event was already streamed
// (and forgets it); the agent's own tool call starts a new message.
func (s *session) wasStreamed(ev editor.WorkflowEvent) bool {
	key := streamKey(ev.Stage, ev.PulseID)
	switch {
	case ev.Kind == editor.EventToolCall && ev.ParentToolCallID == "":
		s.taken(key)
	case ev.Kind == editor.EventMessage && ev.Status != "user":
		return s.taken(key)
	}
	return false
}

// jobWasStreamed is wasStreamed for a job's events.
func (s *session) jobWasStreamed(ev editor.JobEvent) bool {
	switch ev.Kind {
	case "tool_call":
		s.taken(jobStream)
	case "message":
		return s.taken(jobStream)
	}
	return false
}

// taken reports whether the agent's text streamed, and forgets it.
func (s *session) taken(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	was := s.streamed[key]
	delete(s.streamed, key)
	return was
}

// workflowEvent maps a workflow event to session updates.
func (s *session) workflowEvent(ctx context.Context, ev editor.WorkflowEvent) {
	if s.wasStreamed(ev) {
		s.say(ctx, "\n\n")
		return
	}
	var args func(callID string) []byte
	if ev.Kind == editor.EventToolCall && ev.WorkflowID != "" {
		parent, own := ev.ParentToolCallID, ev.ToolCallID
		args = func(string) []byte { return s.storedArgs(ctx, ev.WorkflowID, ev.PulseID, parent, own) }
	}
	ev.ToolCallID = subagentCallKey(ev.ParentToolCallID, ev.ToolCallID)
	for _, u := range s.calls.fromWorkflow(ev, s.f.dir, args) {
		s.send(ctx, u)
	}
	switch ev.Kind {
	case editor.EventUsage:
		s.addUsage(ctx, ev.Usage)
	case editor.EventStage, editor.EventPulse:
		if e, err := s.f.engine(ctx); err == nil {
			s.sendPlan(ctx, e, ev.WorkflowID)
		}
	case editor.EventCard:
		if ev.Card != nil && ev.Card.Kind == editor.CardPlan && ev.Card.Status == editor.CardApproved {
			if e, err := s.f.engine(ctx); err == nil {
				s.sendPlan(ctx, e, ev.WorkflowID)
			}
		}
	}
}

// jobEvent maps a job event to session updates.
func (s *session) jobEvent(ev editor.JobEvent) {
	ctx := context.Background()
	if s.jobWasStreamed(ev) {
		s.say(ctx, "\n\n")
		return
	}
	for _, u := range s.calls.fromJob(ev) {
		s.send(ctx, u)
	}
	if ev.Kind == "usage" {
		s.addUsage(ctx, ev.Usage)
	}
}

// sendPlan reports the workflow's stages and pulses as the plan.
func (s *session) sendPlan(ctx context.Context, e *workflow.Engine, workflowID string) {
	if workflowID == "" {
		return
	}
	d, err := e.Detail(ctx, workflowID)
	if err != nil {
		s.a.log.Debug("plan not reported", "err", err)
		return
	}
	s.send(ctx, sdk.UpdatePlan(planEntries(d)...))
}

// subagentCallKey names a sub-agent's call apart from its parent's own
// calls: a sub-agent numbers its calls afresh, so its call id can repeat
// one of the parent agent's.
func subagentCallKey(parent, callID string) string {
	if parent == "" || callID == "" {
		return callID
	}
	return parent + "/" + callID
}

// storedArgs are a workflow tool call's arguments as the store keeps them
// (the call is recorded before it is announced); parent is the dispatch
// call of a sub-agent's call ("" for the agent's own).
func (s *session) storedArgs(ctx context.Context, workflowID, pulseID, parent, callID string) []byte {
	e, err := s.f.engine(ctx)
	if err != nil || callID == "" {
		return nil
	}
	calls, err := e.Store().ToolCalls(ctx, workflowID, pulseID)
	if err != nil {
		return nil
	}
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].CallID == callID && calls[i].ParentCallID == parent {
			return calls[i].Args
		}
	}
	return nil
}

// addUsage adds a usage event's tokens to the turn's and reports the
// context the call used, out of the model's window, and the cost so far.
func (s *session) addUsage(ctx context.Context, u *editor.UsageView) {
	if u == nil {
		return
	}
	s.mu.Lock()
	if s.turn != nil {
		s.turn.usage.InputTokens += u.PromptTokens
		s.turn.usage.OutputTokens += u.CompletionTokens
		s.turn.usage.TotalTokens += u.PromptTokens + u.CompletionTokens
	}
	s.cost += u.Cost
	cost := s.cost
	s.mu.Unlock()
	window := 0
	if e, err := s.f.engine(ctx); err == nil {
		window = e.Config().Settings.ContextWindow
	}
	s.send(ctx, usageUpdate(*u, window, cost))
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// shorten is the first line of s, at most n runes.
func shorten(s string, n int) string {
	s = firstLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
