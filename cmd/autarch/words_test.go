package main

import (
	"bytes"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
)

// The run's log is rendered from the events' typed fields (Card, From,
// Unresolved), never from the wording of their texts (issue 30).
func TestRunLogRendersTypedFields(t *testing.T) {
	card := func(k editor.CardKind, s editor.CardStatus, rec string) *editor.CardEvent {
		return &editor.CardEvent{Kind: k, Status: s, Recommendation: rec}
	}
	tests := []struct {
		name string
		ev   workflow.Event
		want string
	}{
		{"plan submitted", workflow.Event{Kind: "card", Card: card(editor.CardPlan, editor.CardSubmitted, ""), Text: "Approve the plan (1 pulse)"},
			"■ plan card submitted for approval: Approve the plan (1 pulse)\n"},
		{"plan approved", workflow.Event{Kind: "card", Card: card(editor.CardPlan, editor.CardApproved, "")}, "■ plan approved\n"},
		{"scope sent back", workflow.Event{Kind: "card", Card: card(editor.CardScope, editor.CardRejected, ""), Text: "narrower"},
			"■ scope card sent back with changes: narrower\n"},
		{"research approved", workflow.Event{Kind: "card", Card: card(editor.CardResearch, editor.CardApproved, "")}, "■ research card approved\n"},
		{"extension approved", workflow.Event{Kind: "card", PulseID: "", Card: card(editor.CardExtension, editor.CardApproved, "")}, "■ extension approved\n"},
		{"extension declined", workflow.Event{Kind: "card", Card: card(editor.CardExtension, editor.CardRejected, ""), Text: "stay in scope"},
			"■ extension declined: stay in scope\n"},
		{"review", workflow.Event{Kind: "card", Card: card(editor.CardReview, editor.CardSubmitted, "request_changes"), Text: "Sub is wrong."},
			"■ review recommends request changes: Sub is wrong.\n"},
		{"stage change", workflow.Event{Kind: "stage", Stage: "plan", From: "research", Text: "research, then plan"}, "▶ plan\n"},
		{"preflight", workflow.Event{Kind: "stage", Stage: "preflight", Status: "running", Worktree: "/w", Text: "checking"},
			"  preflight checks the build in the workflow's worktree, /w\n"},
		{"succeeded", workflow.Event{Kind: "pulse", PulseID: "pulse-1", Status: string(workflow.PulseSucceeded), Text: "feat: x (1a2b3c4, +1 −0)"},
			"◆ pulse pulse-1 succeeded: feat: x (1a2b3c4, +1 −0)\n"},
		{"unresolved", workflow.Event{Kind: "pulse", PulseID: "pulse-1", Status: string(workflow.PulseSucceeded), Unresolved: 2, Text: "feat: x (1a2b3c4, +1 −0)"},
			"◆ pulse pulse-1 completed with unresolved issues: feat: x (1a2b3c4, +1 −0)\n"},
		{"a pulse's card", workflow.Event{Kind: "card", PulseID: "pulse-2", Card: card(editor.CardExtension, editor.CardApproved, "")}, "[pulse-2] ■ extension approved\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			printEvent(stdio{err: &errb}, tt.ev)
			if got := errb.String(); got != tt.want {
				t.Errorf("printed %q, want %q", got, tt.want)
			}
		})
	}
}
