package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// The run's log says stages and pulse steps in words, not in the events'
// internal names (issue 31.9).
func TestRunLogSpeaksWords(t *testing.T) {
	var errb bytes.Buffer
	io := stdio{err: &errb}
	for _, ev := range []workflow.Event{
		{Kind: "stage", Stage: "scoping", Text: "workflow calc-sub started"},
		{Kind: "stage", Stage: "research", Text: "scoping → research"},
		{Kind: "stage", Stage: "preflight", Text: "plan → preflight"},
		{Kind: "stage", Stage: "preflight", Status: "running", Text: "preflight in /r/.git/autarch/worktrees/calc-sub"},
		{Kind: "pulse", PulseID: "pulse-1", Status: "QualityGates", Text: "quality gates in 0s: build go build: pass"},
		{Kind: "pulse", PulseID: "pulse-1", Status: "CompletionRejected", Text: "run the tests first"},
		{Kind: "pulse", PulseID: "pulse-2", Status: "Conflict", Text: "re-run on the new head: calc.go changed"},
	} {
		printEvent(io, ev)
	}
	got := errb.String()
	for _, want := range []string{"▶ scoping: workflow calc-sub started\n", "▶ research\n", "▶ preflight\n",
		"  preflight checks the build in the workflow's worktree, /r/.git/autarch/worktrees/calc-sub\n",
		"◆ pulse pulse-1 quality gates in 0s: build go build: pass\n", "◆ pulse pulse-1 completion sent back to the agent: run the tests first\n",
		"◆ pulse pulse-2 conflict: re-run on the new head: calc.go changed\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	for _, internal := range []string{"preflight preflight", "qualitygates", "completionrejected", "→", "scoping workflow"} {
		if strings.Contains(strings.ToLower(got), internal) {
			t.Errorf("log shows %q:\n%s", internal, got)
		}
	}
}

// How a run ended is said with the workflow's stage, never "halted in :".
func TestEndWords(t *testing.T) {
	tests := []struct {
		wf   store.Workflow
		err  error
		want string
	}{
		{store.Workflow{ID: "wf-1", Name: "calc", Stage: "pulsing", Status: store.WorkflowStopped, StatusReason: "stopped by the user"},
			&workflow.Halt{Status: workflow.PulseStopped, Reason: "the workflow was stopped"},
			"workflow calc was stopped in pulsing (stopped by the user); its work so far is kept"},
		{store.Workflow{Name: "calc", Stage: "pulsing", Status: store.WorkflowStopped, StatusReason: "stopped by the user"},
			&workflow.Halt{Pulse: "pulse-2", Status: workflow.PulseStopped, Reason: "the workflow was stopped"},
			"workflow calc was stopped at pulse pulse-2 (stopped by the user); its work so far is kept"},
		{store.Workflow{Name: "calc", Stage: "pulsing", Status: store.WorkflowHalted},
			&workflow.Halt{Pulse: "pulse-1", Status: workflow.PulseFailed, Reason: "tests fail"},
			"workflow calc halted at pulse pulse-1 (failed): tests fail"},
		{store.Workflow{Name: "calc", Stage: "preflight", Status: store.WorkflowHalted},
			&workflow.Halt{Stage: workflow.StagePreflight, Reason: "the build fails"},
			"workflow calc halted in preflight: the build fails"},
		{store.Workflow{Name: "calc"}, fmt.Errorf("model call: %w", errors.New("refused")), "model call: refused"},
	}
	for _, tt := range tests {
		if got := endWords(tt.wf, tt.err); got != tt.want {
			t.Errorf("endWords(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
	var out, errb bytes.Buffer
	runResult(stdio{out: &out, err: &errb}, tests[0].wf, tests[0].err)
	if strings.Contains(errb.String(), "halted in :") || !strings.Contains(errb.String(), "continue with: autarch resume calc") {
		t.Errorf("runResult of a stop:\n%s", errb.String())
	}
}

// A folder outside git and a repository without a commit get a message
// that says what happened and what to do (issue 31.9).
func TestNoRepositoryNoCommit(t *testing.T) {
	loose := t.TempDir()
	for _, verb := range []string{"status", "stop"} {
		args := []string{verb, "--root", loose}
		if verb == "stop" {
			args = append(args, "x")
		}
		code, _, errOut := run(t, args...)
		if code != 1 || !strings.Contains(errOut, "is not in a git repository: Autarch works on branches of a git repository") ||
			!strings.Contains(errOut, "git init && git add -A && git commit -m initial") || strings.Contains(errOut, "rev-parse") {
			t.Errorf("%s in a loose folder: exit %d, stderr %q", verb, code, errOut)
		}
	}
	empty := t.TempDir()
	gitCmd(t, empty, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(empty, "a.go"), []byte("package a\n"), 0o644)
	code, _, errOut := run(t, "run", "--root", empty, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "Add Sub")
	if code != 1 || !strings.Contains(errOut, "has no commit yet: a workflow starts from a commit") || !strings.Contains(errOut, "git add -A && git commit -m initial") {
		t.Errorf("run in a repository without a commit: exit %d, stderr %q", code, errOut)
	}
}

// A search that finds nothing says so, and what to try (issue 31.9).
func TestSearchSaysNothingMatches(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "search", "--root", dir, "subtract two numbers")
	if code != 0 || out != "" || !strings.Contains(errOut, `nothing matches "subtract two numbers": the index holds no files`) {
		t.Errorf("empty folder: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	code, out, errOut = run(t, "search", "--root", dir, "--weight", "**/*.go:0", "Add")
	if code != 0 || out != "" || !strings.Contains(errOut, `nothing matches "Add" in the 1 file indexed`) || !strings.Contains(errOut, "--weight") {
		t.Errorf("excluded by weight: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// Under autarch run --yes without a terminal, an agent that keeps
// answering in prose meets the nudge limit: its messages are not
// auto-answered forever (issue 31.15).
func TestRunYesKeepsTheNudgeLimit(t *testing.T) {
	bin := buildBinary(t)
	dir, _ := scriptedRepo(t, "testdata/run-full.txt")
	prose := `{"text": "I looked at calc.go. It holds Add. Sub would go after it."}`
	script, err := scripted.Parse([]byte("the scoping agent answers in prose, again and again\n" +
		"-- 01-prose.json --\n" + prose + "\n-- 02-prose.json --\n" + prose + "\n-- 03-prose.json --\n" + prose +
		"\n-- 04-prose.json --\n{\"expect\": {\"lastUserContains\": \"End your turn by calling one of\"}, \"text\": \"Sub goes after Add.\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	url, srv := scripted.Start(t, script)
	var stdout, stderr bytes.Buffer
	cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--name", "prose", "Add Sub to calc")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err == nil {
		t.Fatalf("the run succeeded:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "the scoping agent kept answering in prose instead of finishing with") {
		t.Errorf("the run did not end at the nudge limit:\n%s", stderr.String())
	}
	if errs := srv.Errors(); len(errs) > 0 || srv.Remaining() != 0 {
		t.Errorf("model calls: %d steps left, errors %q", srv.Remaining(), errs)
	}
}
