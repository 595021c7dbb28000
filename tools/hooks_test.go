package tools

import (
	"context"
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
