package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Exit 2 blocks only in pre-hooks (spec/tool-engine.md, 001-53): a post or
// notification hook exiting 2 is a failure like any other, its output kept
// and the event's later hooks run.
func TestHookExit2BlocksOnlyPreHooks(t *testing.T) {
	tests := []struct {
		event       string
		blocked     bool
		context     []string // in the outcome's Context (post_tool_use)
		warnings    []string // in the outcome's Warnings (notifications)
		notInResult string
	}{
		{event: EventPreToolUse, blocked: true, notInResult: "after"},
		{event: EventPreLLMCall, blocked: true, notInResult: "after"},
		{event: EventPostToolUse, context: []string{"[Hook lint: FAILED (exit 2)]\nlint: x.go:3: unused\nlint stderr", "after"}},
		{event: EventSessionEnd, warnings: []string{"[Hook lint: FAILED (exit 2)]\nlint: x.go:3: unused\nlint stderr"}},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			h, err := NewHooks(t.TempDir(), []Hook{
				{Name: "lint", Event: tt.event, Command: "echo 'lint: x.go:3: unused'; echo 'lint stderr' >&2; exit 2"},
				{Name: "after", Event: tt.event, Command: "echo after"},
			})
			if err != nil {
				t.Fatal(err)
			}
			out := h.Fire(context.Background(), tt.event, "write_file", "x.go", nil)
			if out.Blocked != tt.blocked {
				t.Errorf("blocked = %v, want %v (%+v)", out.Blocked, tt.blocked, out)
			}
			if tt.blocked && out.Reason != "lint stderr" {
				t.Errorf("reason = %q, want the hook's stderr", out.Reason)
			}
			if strings.Join(out.Context, "|") != strings.Join(tt.context, "|") {
				t.Errorf("context = %q, want %q", out.Context, tt.context)
			}
			if strings.Join(out.Warnings, "|") != strings.Join(tt.warnings, "|") {
				t.Errorf("warnings = %q, want %q", out.Warnings, tt.warnings)
			}
		})
	}
}

// Every hook that ran is reported for the human log with the spec's line
// ("🔍 Hook python-lint: ⚠️"), 001-78.
func TestHookRunsReported(t *testing.T) {
	h, err := NewHooks(t.TempDir(), []Hook{
		{Name: "guard", Event: EventPreToolUse, Matcher: "^shell$", Command: "echo no >&2; exit 2"},
		{Name: "fmt", Event: EventPostToolUse, Command: "echo formatted"},
		{Name: "python-lint", Event: EventPostToolUse, Command: "echo 'main.py:15:5: F841'; exit 1"},
		{Name: "notify", Event: EventSessionEnd, Command: "exit 2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	var failed []bool
	ctx := WithHookContext(context.Background(), HookContext{Report: func(r HookRun) {
		lines = append(lines, r.Line())
		failed = append(failed, r.Failed())
	}})
	h.Fire(ctx, EventPreToolUse, "shell", "", nil)
	h.Fire(ctx, EventPostToolUse, "edit_file", "main.py", nil)
	h.Fire(ctx, EventSessionEnd, "", "", nil)
	want := []string{"🔍 Hook guard: ⛔ blocked shell", "🔍 Hook fmt: ✅", "🔍 Hook python-lint: ⚠️ exit 1", "🔍 Hook notify: ⚠️ exit 2"}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", lines, want)
	}
	if strings.Trim(strings.Replace(strings.Trim(fmt.Sprint(failed), "[]"), " ", ",", -1), ",") != "false,false,true,true" {
		t.Errorf("failed = %v, want [false false true true]", failed)
	}
}
