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

// Lines of a pulse's agent name the pulse, each written whole; the pulse's
// own events and usage are printed as before.
func TestPrintEventPrefixesPulseLines(t *testing.T) {
	var errb bytes.Buffer
	io := stdio{err: &errb}
	printEvent(io, workflow.Event{Kind: "tool_call", PulseID: "pulse-2", Tool: "write_file", Reason: "Write b.go"})
	printEvent(io, workflow.Event{Kind: "message", PulseID: "pulse-3", Text: "two\nlines"})
	printEvent(io, workflow.Event{Kind: "tool_call", Tool: "read_file", Reason: "Read"})
	printEvent(io, workflow.Event{Kind: "pulse", PulseID: "pulse-2", Status: "Lane", Text: "1 of 2, on b"})
	printEvent(io, workflow.Event{Kind: "pulse", PulseID: "pulse-3", Status: "WaitingToLand", Text: "after pulse-2 (plan order)"})
	got := errb.String()
	for _, want := range []string{"[pulse-2]   • write_file: Write b.go\n", "\n[pulse-3] two\n[pulse-3] lines\n\n", "\n  • read_file: Read\n", "◆ pulse pulse-2 lane: 1 of 2, on b\n", "◆ pulse pulse-3 waits to land: after pulse-2 (plan order)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// The CLI names a pulse's agent lines by the plan's pulse id, looked up
// once from the stored pulse.
func TestPulseNamesFromTheStore(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t, store.Options{})
	wf := store.Workflow{Name: "par", Stage: "pulsing"}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	p := store.Pulse{WorkflowID: wf.ID, PlannedID: "pulse-2"}
	if err := st.AddPulse(ctx, &p); err != nil {
		t.Fatal(err)
	}
	n := pulseNames{store: st}
	for _, c := range []struct{ in, kind, want string }{{p.ID, "tool_call", "pulse-2"}, {p.ID, "tool_call", "pulse-2"}, {"pulse-2", "pulse", "pulse-2"}, {"pulse-unknown", "message", "pulse-unknown"}, {"", "tool_call", ""}} {
		if got := n.plan(ctx, workflow.Event{Kind: editor.EventKind(c.kind), PulseID: c.in}).PulseID; got != c.want {
			t.Errorf("%s event of %q names %q, want %q", c.kind, c.in, got, c.want)
		}
	}
}

// autarch run --parallel 2 through the built binary: the pulse runs in a
// lane of its own worktree, its agent's lines carry its id, it lands as
// one commit, and no worktree is left but the user's.
func TestRunParallelFromTheCommandLine(t *testing.T) {
	bin := buildBinary(t)
	dir, url, _ := scriptedProject(t, "testdata/run-full.txt", "", "")
	head := gitCmd(t, dir, "rev-parse", "HEAD")
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--parallel", "2", "--name", "calc-sub", "Add Sub to calc")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("autarch run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "calc-sub\tdone\tCompleted") {
		t.Errorf("stdout = %q", stdout.String())
	}
	for _, want := range []string{"◆ pulse pulse-1 lane: 1 of 2, on autarch-pulse/calc-sub/pulse-1 from ", "[pulse-1]   • edit_file: Add Sub",
		"◆ pulse pulse-1 succeeded: feat(calc): add Sub (", "landed 1 of 1)"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the run's log lacks %q:\n%s", want, stderr.String())
		}
	}
	if got := gitCmd(t, dir, "log", "--format=%s", "main..autarch/calc-sub"); got != "feat(calc): add Sub\n" {
		t.Errorf("workflow branch commits = %q", got)
	}
	if got := gitCmd(t, dir, "rev-parse", "HEAD"); got != head || gitCmd(t, dir, "status", "--porcelain") != "" {
		t.Errorf("the user's checkout changed")
	}
	if wts := strings.TrimSpace(gitCmd(t, dir, "worktree", "list")); strings.Count(wts, "\n") != 0 {
		t.Errorf("worktrees left:\n%s", wts)
	}
}
