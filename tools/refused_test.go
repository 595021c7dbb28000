package tools

import (
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// A call that something said no to (the blocklist, allowed_only, the
// person, a missing terminal, allow_delete, the secret gate) comes back
// Refused as well as Failed; a tool's own failure and a success do not.
func TestResultRefused(t *testing.T) {
	tests := []struct {
		name            string
		cfg             SessionConfig
		tool            string
		args            map[string]any
		failed, refused bool
	}{
		{name: "ok", tool: "read_file", args: map[string]any{"path": "pkg/util.go"}},
		{name: "tool failure", tool: "read_file", args: map[string]any{"path": "missing.go"}, failed: true},
		{name: "blocklist", tool: "shell", args: map[string]any{"command": "rm -rf /"}, failed: true, refused: true},
		{name: "allowed_only", cfg: SessionConfig{AllowedOnly: true}, tool: "shell", args: map[string]any{"command": "pip install --user x"}, failed: true, refused: true},
		{name: "person rejects", cfg: SessionConfig{Mode: ModeConfirmAll, Editor: &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionReject}}},
			tool: "shell", args: map[string]any{"command": "ls"}, failed: true, refused: true},
		{name: "no terminal to ask", cfg: SessionConfig{Mode: ModeConfirmAll}, tool: "shell", args: map[string]any{"command": "ls"}, failed: true, refused: true},
		{name: "deletion disabled", tool: "delete_file", args: map[string]any{"path": "pkg/util.go"}, failed: true, refused: true},
		{name: "secret gate", tool: "read_file", args: map[string]any{"path": ".env"}, failed: true, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pulsing", tt.cfg)
			if !h.e.reg.Has(tt.tool) {
				if err := h.e.reg.Register(newDeleteFile()); err != nil {
					t.Fatal(err)
				}
			}
			res := h.call(tt.tool, tt.args)
			if res.Failed != tt.failed || res.Refused != tt.refused {
				t.Errorf("failed %v refused %v, want %v %v: %s", res.Failed, res.Refused, tt.failed, tt.refused, res.Output)
			}
		})
	}
}
