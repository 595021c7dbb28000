package main

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// TestJobLogShowsHooks (001-78): a job's human log shows each hook that
// ran with the spec's line ("🔍 Hook NAME: …"), as a workflow's does.
func TestJobLogShowsHooks(t *testing.T) {
	for _, run := range []tools.HookRun{
		{Hook: "gofmt", Event: "post_tool_use", Tool: "apply_patch"},
		{Hook: "lint", Event: "post_tool_use", Tool: "apply_patch", Exit: 1},
		{Hook: "no-secrets", Event: "pre_tool_use", Tool: "apply_patch", Exit: 2, Blocked: true},
	} {
		t.Run(run.Hook, func(t *testing.T) {
			var job, wf strings.Builder
			printJobEvent(stdio{err: &job}, editor.JobEvent{Kind: "hook", Tool: run.Tool, Text: run.Line(), Failed: run.Failed()})
			printEvent(stdio{err: &wf}, workflow.Event{Kind: "hook", Tool: run.Tool, Text: run.Line(), Failed: run.Failed()})
			if !strings.Contains(job.String(), run.Line()) || job.String() != wf.String() {
				t.Errorf("job log %q, workflow log %q: want both to show %q alike", job.String(), wf.String(), run.Line())
			}
		})
	}
}
