package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/agent/run"
)

// Note is one take_note entry; notes belong to a stage and are cleared when
// the workflow leaves it (AdvanceStage).
type Note struct {
	ID         int64
	WorkflowID string
	Stage      string
	Content    string
	CreatedAt  time.Time
}

// AddNote stores a note for a stage.
func (o ops) AddNote(ctx context.Context, n *Note) error {
	if strings.TrimSpace(n.Content) == "" {
		return fmt.Errorf("note content is required")
	}
	if strings.TrimSpace(n.Stage) == "" {
		return fmt.Errorf("note stage is required")
	}
	n.CreatedAt = o.clock()
	err := o.q.QueryRowContext(ctx, `INSERT INTO notes (workflow_id, stage, content, created_at) VALUES (?,?,?,?) RETURNING id`,
		n.WorkflowID, n.Stage, n.Content, stamp(n.CreatedAt)).Scan(&n.ID)
	if err != nil {
		return fmt.Errorf("add note: %w", err)
	}
	return nil
}

// Notes lists a stage's notes in order (but those a revert set aside).
func (o ops) Notes(ctx context.Context, workflowID, stage string) ([]Note, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (Note, error) {
		var n Note
		err := row.Scan(&n.ID, &n.WorkflowID, &n.Stage, &n.Content, stampTo(&n.CreatedAt))
		return n, err
	}, "notes", `SELECT id, workflow_id, stage, content, created_at FROM notes WHERE workflow_id=? AND stage=? AND set_aside_by='' ORDER BY id`, workflowID, stage)
}

// ClearNotes deletes a stage's notes.
func (o ops) ClearNotes(ctx context.Context, workflowID, stage string) error {
	if _, err := o.q.ExecContext(ctx, `DELETE FROM notes WHERE workflow_id=? AND stage=?`, workflowID, stage); err != nil {
		return fmt.Errorf("clear notes: %w", err)
	}
	return nil
}

// Message is one message of a stage's conversation (of one pulse, when
// PulseID is set: each pulse sees only its own).
type Message struct {
	ID         int64
	WorkflowID string
	Stage      string
	PulseID    string
	Role       string // system, user, assistant or tool
	Content    string
	// Data is the message's structured part as JSON (tool calls of an
	// assistant message, the call id of a tool result, …).
	Data      json.RawMessage
	CreatedAt time.Time
}

// AddMessage appends a message to a conversation.
func (o ops) AddMessage(ctx context.Context, m *Message) error {
	switch m.Role {
	case "system", "user", "assistant", "tool":
	default:
		return fmt.Errorf("invalid message role %q: use system, user, assistant or tool", m.Role)
	}
	if len(m.Data) > 0 && !json.Valid(m.Data) {
		return fmt.Errorf("message data is not valid JSON")
	}
	m.CreatedAt = o.clock()
	err := o.q.QueryRowContext(ctx, `INSERT INTO messages (run_id, stage, pulse_id, role, content, data, created_at)
		VALUES (?,?,?,?,?,?,?) RETURNING id`, m.WorkflowID, m.Stage, m.PulseID, m.Role, m.Content, rawJSON(m.Data), stamp(m.CreatedAt)).Scan(&m.ID)
	if err != nil {
		return fmt.Errorf("add message: %w", err)
	}
	return nil
}

// Messages lists the conversation of a stage (and pulse, "" for none) in
// order, but the messages a revert set aside (a reverted pulse's earlier
// runs: kept, not current).
func (o ops) Messages(ctx context.Context, workflowID, stage, pulseID string) ([]Message, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (Message, error) {
		var m Message
		var data sql.NullString
		err := row.Scan(&m.ID, &m.WorkflowID, &m.Stage, &m.PulseID, &m.Role, &m.Content, &data, stampTo(&m.CreatedAt))
		if data.Valid {
			m.Data = json.RawMessage(data.String)
		}
		return m, err
	}, "messages", `SELECT id, run_id, stage, pulse_id, role, content, data, created_at FROM messages
		WHERE run_id=? AND stage=? AND pulse_id=? AND set_aside_by='' ORDER BY id`, workflowID, stage, pulseID)
}

// ToolCall is one tool call with its reason and outcome.
type ToolCall struct {
	ID         int64
	WorkflowID string
	Stage      string
	PulseID    string
	CallID     string // the model's id for the call
	// ParentCallID is set on a sub-agent's call: the CallID of the
	// dispatch_subagent call that ran it (its parent); Subagent is the
	// sub-agent's type. A sub-agent's CallID is unique only under its parent.
	ParentCallID  string
	Subagent      string
	Name          string
	Args          json.RawMessage
	Reason        string
	ResultSummary string
	// Outcome is how the call ended (ok, failed, refused; "" while it
	// runs, or when its process died first); Failed is set for failed and
	// refused calls.
	Outcome   run.Outcome `json:",omitempty"`
	Failed    bool
	StartedAt time.Time
	EndedAt   time.Time // zero while running
}

// AddToolCall records a tool call as it starts (or, with EndedAt set by the
// caller, a finished one).
func (o ops) AddToolCall(ctx context.Context, c *ToolCall) error {
	if strings.TrimSpace(c.Name) == "" {
		return fmt.Errorf("tool call name is required")
	}
	if len(c.Args) > 0 && !json.Valid(c.Args) {
		return fmt.Errorf("tool call %s: args are not valid JSON", c.Name)
	}
	if c.StartedAt.IsZero() {
		c.StartedAt = o.clock()
	}
	if c.ParentCallID != "" && c.Subagent == "" {
		return fmt.Errorf("tool call %s: a sub-agent's call (parent %s) needs its sub-agent type", c.Name, c.ParentCallID)
	}
	if !c.EndedAt.IsZero() && c.Outcome == "" {
		c.Outcome = run.OutcomeOK
		if c.Failed {
			c.Outcome = run.OutcomeFailed
		}
	}
	c.Failed = c.Failed || c.Outcome.Failed()
	err := o.q.QueryRowContext(ctx, `INSERT INTO tool_calls (run_id, stage, pulse_id, call_id, parent_call_id, subagent, name, args, reason,
		result_summary, outcome, failed, started_at, ended_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id`, c.WorkflowID, c.Stage, c.PulseID, c.CallID,
		c.ParentCallID, c.Subagent, c.Name, rawJSON(c.Args), c.Reason, c.ResultSummary, c.Outcome, c.Failed, stamp(c.StartedAt), stamp(c.EndedAt)).Scan(&c.ID)
	if err != nil {
		return fmt.Errorf("add tool call %s: %w", c.Name, err)
	}
	return nil
}

// FinishToolCall records how a tool call ended: its result's summary and
// its outcome (ok, failed or refused).
func (o ops) FinishToolCall(ctx context.Context, id int64, resultSummary string, outcome run.Outcome) error {
	if err := checkOutcome(outcome); err != nil {
		return err
	}
	return o.execOne(ctx, fmt.Sprintf("finish tool call %d", id), "tool call", fmt.Sprint(id), `UPDATE tool_calls SET result_summary=?, outcome=?, failed=?, ended_at=? WHERE id=?`,
		resultSummary, outcome, outcome.Failed(), stamp(o.clock()), id)
}

// checkOutcome refuses an outcome that is not the run kernel's.
func checkOutcome(o run.Outcome) error {
	switch o {
	case run.OutcomeOK, run.OutcomeFailed, run.OutcomeRefused:
		return nil
	}
	return fmt.Errorf("invalid tool call outcome %q: use ok, failed or refused", o)
}

// ToolCalls lists the tool calls of a workflow's pulse ("" for calls outside
// pulses), in order: a sub-agent's calls (ParentCallID set) come after
// their dispatch call, as they were made.
func (o ops) ToolCalls(ctx context.Context, workflowID, pulseID string) ([]ToolCall, error) {
	return queryAll(ctx, o, scanToolCall, "tool calls", `SELECT `+toolCallColumns+` FROM tool_calls WHERE run_id=? AND pulse_id=? ORDER BY id`,
		workflowID, pulseID)
}

const toolCallColumns = `id, run_id, stage, pulse_id, call_id, parent_call_id, subagent, name, args, reason, result_summary, outcome,
	failed, started_at, ended_at`

func scanToolCall(row interface{ Scan(...any) error }) (ToolCall, error) {
	var c ToolCall
	var args sql.NullString
	err := row.Scan(&c.ID, &c.WorkflowID, &c.Stage, &c.PulseID, &c.CallID, &c.ParentCallID, &c.Subagent, &c.Name, &args, &c.Reason,
		&c.ResultSummary, &c.Outcome, &c.Failed, stampTo(&c.StartedAt), stampTo(&c.EndedAt))
	if args.Valid {
		c.Args = json.RawMessage(args.String)
	}
	return c, err
}

// Usage is the token use and cost of one model call.
type Usage struct {
	ID               int64
	WorkflowID       string
	Stage            string
	PulseID          string
	Model            string
	PromptTokens     int64
	CompletionTokens int64
	Cost             float64 // in USD
	CreatedAt        time.Time
}

// AddUsage records one model call's usage.
func (o ops) AddUsage(ctx context.Context, u *Usage) error {
	if u.PromptTokens < 0 || u.CompletionTokens < 0 || u.Cost < 0 {
		return fmt.Errorf("usage must not be negative (prompt %d, completion %d, cost %g)", u.PromptTokens, u.CompletionTokens, u.Cost)
	}
	u.CreatedAt = o.clock()
	err := o.q.QueryRowContext(ctx, `INSERT INTO usage (workflow_id, stage, pulse_id, model, prompt_tokens, completion_tokens, cost, created_at)
		VALUES (?,?,?,?,?,?,?,?) RETURNING id`, u.WorkflowID, u.Stage, u.PulseID, u.Model, u.PromptTokens, u.CompletionTokens, u.Cost,
		stamp(u.CreatedAt)).Scan(&u.ID)
	if err != nil {
		return fmt.Errorf("add usage: %w", err)
	}
	return nil
}

// UsageTotal aggregates usage.
type UsageTotal struct {
	Calls            int
	PromptTokens     int64
	CompletionTokens int64
	Cost             float64
}

// WorkflowUsage is a workflow's total usage.
func (o ops) WorkflowUsage(ctx context.Context, workflowID string) (UsageTotal, error) {
	var t UsageTotal
	err := o.q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(prompt_tokens),0), COALESCE(SUM(completion_tokens),0), COALESCE(SUM(cost),0)
		FROM usage WHERE workflow_id=?`, workflowID).Scan(&t.Calls, &t.PromptTokens, &t.CompletionTokens, &t.Cost)
	if err != nil {
		return UsageTotal{}, fmt.Errorf("workflow usage: %w", err)
	}
	return t, nil
}

// PulseUsage is a workflow's usage per pulse id ("" for calls outside
// pulses).
func (o ops) PulseUsage(ctx context.Context, workflowID string) (map[string]UsageTotal, error) {
	rows, err := o.q.QueryContext(ctx, `SELECT pulse_id, COUNT(*), SUM(prompt_tokens), SUM(completion_tokens), SUM(cost)
		FROM usage WHERE workflow_id=? GROUP BY pulse_id`, workflowID)
	if err != nil {
		return nil, fmt.Errorf("pulse usage: %w", err)
	}
	defer rows.Close()
	out := map[string]UsageTotal{}
	for rows.Next() {
		var id string
		var t UsageTotal
		if err := rows.Scan(&id, &t.Calls, &t.PromptTokens, &t.CompletionTokens, &t.Cost); err != nil {
			return nil, fmt.Errorf("pulse usage: %w", err)
		}
		out[id] = t
	}
	return out, rows.Err()
}

// PendingStatus is where a question or approval stands.
type PendingStatus string

// Pending statuses.
const (
	PendingOpen      PendingStatus = "Pending"
	PendingAnswered  PendingStatus = "Answered"
	PendingCancelled PendingStatus = "Cancelled"
)

// Pending is a question or approval waiting for the user, kept so a
// restart can ask again (a row of the questions table, the run kernel's
// one table of questions waiting on a human: Kind is its topic).
type Pending struct {
	ID         string
	WorkflowID string
	Stage      string
	// Kind says what is asked: questions, scope, research, plan, extension,
	// unresolved_issues, tool_approval, …
	Kind       string
	Payload    json.RawMessage
	Status     PendingStatus
	Answer     json.RawMessage
	CreatedAt  time.Time
	ResolvedAt time.Time
}

// questionKind is the run kernel's kind of question (agent/run
// QuestionKind) of a workflow's pending topic: its cards, its reviews, its
// questions, else an approval.
func questionKind(topic string) string {
	switch topic {
	case "scope", "research", "plan":
		return "card"
	case "review", "unresolved_issues":
		return "review"
	case "escalation":
		return "escalation"
	case "questions", "reply":
		return "question"
	}
	return "approval"
}

// AddPending stores an open question or approval.
func (o ops) AddPending(ctx context.Context, p *Pending) error {
	if strings.TrimSpace(p.Kind) == "" {
		return fmt.Errorf("pending kind is required")
	}
	if len(p.Payload) > 0 && !json.Valid(p.Payload) {
		return fmt.Errorf("pending %s: payload is not valid JSON", p.Kind)
	}
	ensureID(&p.ID, "ask")
	p.Status, p.Answer, p.CreatedAt, p.ResolvedAt = PendingOpen, nil, o.clock(), time.Time{}
	return o.exec(ctx, fmt.Sprintf("add pending %s", p.Kind), `INSERT INTO questions (id, run_id, stage, kind, topic, payload, status, created_at) VALUES (?,?,?,?,?,?,?,?)`,
		p.ID, p.WorkflowID, p.Stage, questionKind(p.Kind), p.Kind, rawJSON(p.Payload), p.Status, stamp(p.CreatedAt))
}

// AnswerPending records the answer to an open question or approval.
func (o ops) AnswerPending(ctx context.Context, id string, answer json.RawMessage) error {
	if len(answer) > 0 && !json.Valid(answer) {
		return fmt.Errorf("answer to %s is not valid JSON", id)
	}
	return o.resolvePending(ctx, id, PendingAnswered, answer)
}

// CancelPending closes an open question or approval without an answer.
func (o ops) CancelPending(ctx context.Context, id string) error {
	return o.resolvePending(ctx, id, PendingCancelled, nil)
}

func (o ops) resolvePending(ctx context.Context, id string, status PendingStatus, answer json.RawMessage) error {
	return o.execOne(ctx, fmt.Sprintf("resolve %s", id), "open question or approval", id, `UPDATE questions SET status=?, answer=?, resolved_at=? WHERE id=? AND status='Pending'`,
		status, rawJSON(answer), stamp(o.clock()), id)
}

// OpenPending lists a workflow's open questions and approvals, oldest
// first.
func (o ops) OpenPending(ctx context.Context, workflowID string) ([]Pending, error) {
	return o.pendings(ctx, `WHERE run_id=? AND status='Pending'`, workflowID)
}

// PendingItem reads one question or approval.
func (o ops) PendingItem(ctx context.Context, id string) (Pending, error) {
	list, err := o.pendings(ctx, `WHERE id=?`, id)
	return first(list, err, "question or approval", id)
}

func (o ops) pendings(ctx context.Context, where string, args ...any) ([]Pending, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (Pending, error) {
		var p Pending
		var payload, answer sql.NullString
		err := row.Scan(&p.ID, &p.WorkflowID, &p.Stage, &p.Kind, &payload, &p.Status, &answer, stampTo(&p.CreatedAt), stampTo(&p.ResolvedAt))
		if payload.Valid {
			p.Payload = json.RawMessage(payload.String)
		}
		if answer.Valid {
			p.Answer = json.RawMessage(answer.String)
		}
		return p, err
	}, "pending", `SELECT id, run_id, stage, topic, payload, status, answer, created_at, resolved_at FROM questions `+where+
		` ORDER BY created_at, rowid`, args...)
}
