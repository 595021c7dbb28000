package app

import (
	"fmt"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
)

// Event is one event of the session's stream: the run kernel's typed
// envelope (which run, what kind of event, its tool call, outcome and
// usage) and the run kind's own event with its details, exactly one of
// Workflow, Job and Swarm set (the one Run.Kind names). A transport picks
// its notification by Run.Kind and sends the kind's event as it is.
type Event struct {
	kernel.Event
	Workflow *editor.WorkflowEvent `json:"-"`
	Job      *editor.JobEvent      `json:"-"`
	Swarm    *editor.SwarmEvent    `json:"-"`
	// Fleet is set instead on an event of a fleet run this session
	// follows (its Run names a workflow or a job).
	Fleet *editor.FleetEvent `json:"-"`
}

// outcome is a tool result's outcome from its failed flag and, when the
// kind says so, its refusal.
func outcome(kind string, failed, refused bool) kernel.Outcome {
	switch {
	case kind != string(kernel.EventToolResult) && kind != "applied":
		return ""
	case refused:
		return kernel.OutcomeRefused
	case failed:
		return kernel.OutcomeFailed
	}
	return kernel.OutcomeOK
}

func usage(u *editor.UsageView) *kernel.Usage {
	if u == nil {
		return nil
	}
	return &kernel.Usage{PromptTokens: int64(u.PromptTokens), CompletionTokens: int64(u.CompletionTokens), Cost: u.Cost}
}

func workflowEvent(ev editor.WorkflowEvent) Event {
	return Event{Event: kernel.Event{Run: kernel.Ref{Kind: kernel.KindWorkflow, ID: ev.WorkflowID}, Kind: kernel.EventKind(ev.Kind),
		Status: kernel.Status(ev.Status), Text: ev.Text, Tool: ev.Tool, Reason: ev.Reason, CallID: ev.ToolCallID,
		ParentCallID: ev.ParentToolCallID, Subagent: ev.Subagent, Outcome: outcome(string(ev.Kind), ev.Failed, false), Usage: usage(ev.Usage)},
		Workflow: &ev}
}

func jobEvent(ev editor.JobEvent) Event {
	return Event{Event: kernel.Event{Run: kernel.Ref{Kind: kernel.KindJob, ID: ev.JobID}, Kind: kernel.EventKind(ev.Kind),
		Status: kernel.Status(ev.Status), Text: ev.Text, Tool: ev.Tool, Reason: ev.Reason, CallID: ev.ToolCallID,
		Outcome: outcome(ev.Kind, ev.Failed, false), Usage: usage(ev.Usage)}, Job: &ev}
}

func swarmEvent(ev editor.SwarmEvent) Event {
	return Event{Event: kernel.Event{Run: kernel.Ref{Kind: kernel.KindSwarm, ID: ev.SwarmID}, Kind: kernel.EventKind(ev.Kind),
		Status: kernel.Status(ev.Status), Text: ev.Text, Tool: ev.Tool, Outcome: outcome(ev.Kind, ev.Failed, ev.Refused)}, Swarm: &ev}
}

// Activity is an event's line in the session's activity view (the
// editor's log): every tool call of every kind of run, and a swarm's
// decisions, commits and applied writes; ok is false for an event the
// view does not show.
func Activity(ev Event) (line string, ok bool) {
	switch {
	case ev.Workflow != nil && ev.Kind == kernel.EventToolCall:
		return fmt.Sprintf("[%s] %s: %s", ev.Workflow.Stage, ev.Tool, ev.Reason), true
	case ev.Job != nil && ev.Kind == kernel.EventToolCall:
		return fmt.Sprintf("[job %.8s] %s: %s", ev.Run.ID, ev.Tool, ev.Reason), true
	case ev.Swarm != nil:
		switch ev.Swarm.Kind {
		case "tool_call", "decision", "commit", "applied":
			e := ev.Swarm
			return fmt.Sprintf("[swarm %.8s] %s %s %s%s %s", e.SwarmID, e.Kind, e.Agent, e.Tool, e.Path, clip(e.Text, 200)), true
		}
	}
	return "", false
}

// clip shortens s to n bytes and an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
