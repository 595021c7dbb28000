package main

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
)

// TestJobAndWorkflowShowActivityAlike: an agent's activity (a tool call,
// its failed result, a hook's line, a retry, a message) reads the same in
// a job's log as in a workflow's; a result that did not fail says nothing.
func TestJobAndWorkflowShowActivityAlike(t *testing.T) {
	for _, tc := range []struct {
		kind, tool, reason, text string
		failed                   bool
		want                     string
	}{
		{kind: "tool_call", tool: "read_file", reason: "Read a.go", want: "  • read_file: Read a.go\n"},
		{kind: "tool_result", tool: "shell", text: "exit 1", failed: true, want: "    ✗ shell failed: exit 1\n"},
		{kind: "tool_result", tool: "shell", text: "ok", want: ""},
		{kind: "hook", tool: "edit_file", text: "🔍 Hook fmt: ✅", want: "    🔍 Hook fmt: ✅\n"},
		{kind: "retry", text: "model call failed: retrying in 1s", want: "  ↻ model call failed: retrying in 1s\n"},
		{kind: "message", text: "Done.", want: "\nDone.\n\n"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			var job, wf strings.Builder
			printJobEvent(stdio{err: &job}, editor.JobEvent{Kind: tc.kind, Tool: tc.tool, Reason: tc.reason, Text: tc.text, Failed: tc.failed})
			printEvent(stdio{err: &wf}, workflow.Event{Kind: editor.EventKind(tc.kind), Tool: tc.tool, Reason: tc.reason, Text: tc.text, Failed: tc.failed})
			if job.String() != tc.want {
				t.Errorf("job's log: %q, want %q", job.String(), tc.want)
			}
			if wf.String() != tc.want {
				t.Errorf("workflow's log: %q, want %q", wf.String(), tc.want)
			}
		})
	}
}
