package run

import (
	"time"

	"github.com/autarch-dev/autarch/agent"
)

// EventKind says what an Event tells. Engines add kinds of their own
// records (a job's "commit", "check", …) as EventKind constants beside
// these.
type EventKind string

// Kinds of events every kind of run emits.
const (
	// EventStatus: the run's status changed (Status, Text: why).
	EventStatus EventKind = "status"
	// EventMessage: the agent's message, whole.
	EventMessage EventKind = "message"
	// EventText: a piece of the agent's message as the model streams it.
	EventText EventKind = "text"
	// EventToolCall: a tool call starts (Tool, Reason, CallID).
	EventToolCall EventKind = "tool_call"
	// EventToolResult: a tool call ended (Outcome, Text: its summary).
	EventToolResult EventKind = "tool_result"
	// EventUsage: a model call's Usage.
	EventUsage EventKind = "usage"
	// EventQuestion: a question waits on a human, or was answered
	// (Question).
	EventQuestion EventKind = "question"
	// EventRetry, EventCompaction, EventBudgetWarning and EventWarning
	// are the agent loop's notices (Text).
	EventRetry         EventKind = "retry"
	EventCompaction    EventKind = "compaction"
	EventBudgetWarning EventKind = "budget_warning"
	EventWarning       EventKind = "warning"
)

// Outcome is how a tool call ended.
type Outcome string

// Outcomes of tool calls.
const (
	OutcomeOK     Outcome = "ok"
	OutcomeFailed Outcome = "failed"
	// OutcomeRefused: the call did not run (a guardrail, the user, the
	// mode or the gate refused it).
	OutcomeRefused Outcome = "refused"
)

// Event is the one envelope of what a run does, for every kind of run
// and every transport: typed fields, never text to parse back.
type Event struct {
	Run  Ref       `json:"run"`
	Kind EventKind `json:"kind"`
	At   time.Time `json:"at"`
	// Status is the run's status (EventStatus).
	Status Status `json:"status,omitempty"`
	// Text is what the user reads: a message, a reason, a summary.
	Text string `json:"text,omitempty"`
	// Tool, Reason and CallID name a tool call (EventToolCall,
	// EventToolResult); ParentCallID is the call id of the
	// dispatch_subagent call whose sub-agent made it ("" for the agent's
	// own), Subagent the sub-agent's type.
	Tool         string `json:"tool,omitempty"`
	Reason       string `json:"reason,omitempty"`
	CallID       string `json:"callId,omitempty"`
	ParentCallID string `json:"parentCallId,omitempty"`
	Subagent     string `json:"subagent,omitempty"`
	// Outcome is how a tool call ended (EventToolResult).
	Outcome Outcome `json:"outcome,omitempty"`
	// Usage is a model call's usage (EventUsage).
	Usage *Usage `json:"usage,omitempty"`
	// Question is the question asked or answered (EventQuestion).
	Question *Question `json:"question,omitempty"`
}

// Failed reports whether a tool call did not succeed (failed or refused).
func (e Event) Failed() bool { return e.Outcome.Failed() }

// Failed reports whether the call did not succeed (failed or refused).
func (o Outcome) Failed() bool { return o == OutcomeFailed || o == OutcomeRefused }

// OutcomeOf is how an agent loop's tool result event says its call ended:
// its typed outcome, or (an event without one) its failed flag.
func OutcomeOf(ev agent.Event) Outcome {
	switch ev.Outcome {
	case agent.CallOK, agent.CallFailed, agent.CallRefused:
		return Outcome(ev.Outcome)
	}
	if ev.Failed {
		return OutcomeFailed
	}
	return OutcomeOK
}

// FromAgent is an agent loop's event as a run's event.
func FromAgent(run Ref, ev agent.Event) Event {
	out := Event{Run: run, Kind: EventKind(ev.Kind), At: time.Now(), Text: ev.Text, Tool: ev.Tool, Reason: ev.Reason,
		CallID: ev.CallID, ParentCallID: ev.Parent, Subagent: ev.Subagent}
	if ev.Kind == string(EventToolResult) {
		out.Outcome = OutcomeOf(ev)
	}
	return out
}

// Emitter sends a run's events to a sink (nil: dropped).
type Emitter func(Event)

// Emit sends ev, stamped with the time if it has none.
func (e Emitter) Emit(ev Event) {
	if e == nil {
		return
	}
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	e(ev)
}

// Send calls sink with v unless sink is nil: an engine's optional event
// sinks (nil: dropped).
func Send[T any](sink func(T), v T) {
	if sink != nil {
		sink(v)
	}
}
