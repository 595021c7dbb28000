package testkit

import (
	"strings"
	"testing"
)

// Call is what CheckNesting reads of an event: its kind ("tool_call",
// "tool_result", …), tool, call id, the id of the call it is nested
// under ("" for none), the sub-agent that made it and its reason.
type Call struct {
	Kind, Tool, ID, Parent, Subagent, Reason string
}

// CheckNesting checks that the tool calls with the nested reasons, and
// only they, are marked with the id of a dispatch_subagent call, and
// that every event so marked names such a call and its sub-agent. call
// reads an event.
func CheckNesting[E any](t testing.TB, events []E, call func(E) Call, nested []string) {
	t.Helper()
	dispatches := map[string]bool{}
	for _, e := range events {
		if c := call(e); c.Kind == "tool_call" && c.Tool == "dispatch_subagent" && c.Parent == "" {
			dispatches[c.ID] = true
		}
	}
	var got []string
	for _, e := range events {
		c := call(e)
		if c.Parent == "" {
			continue
		}
		if !dispatches[c.Parent] || c.Subagent == "" {
			t.Errorf("event %+v is nested under %q, which is no dispatch_subagent call of the parent (%v)", e, c.Parent, dispatches)
		}
		if c.Kind == "tool_call" {
			got = append(got, c.Reason)
		}
	}
	if strings.Join(got, "|") != strings.Join(nested, "|") {
		t.Errorf("nested tool calls = %q, want %q", got, nested)
	}
}
