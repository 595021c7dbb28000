package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// An edit approval shows the change as a unified diff, not the call's
// escaped JSON, for every edit tool.
func TestApprovalShowsEditAsDiff(t *testing.T) {
	util := "package pkg\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n"
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string // the whole detail
	}{
		{"edit_file", "edit_file", map[string]any{"path": "pkg/util.go", "oldString": "return a - b", "newString": "return a - b // subtracts"},
			"--- a/pkg/util.go\n+++ b/pkg/util.go\n@@ -3,4 +3,4 @@\n // Add adds.\n func Add(a, b int) int { return a + b }\n \n-func Sub(a, b int) int { return a - b }\n+func Sub(a, b int) int { return a - b // subtracts }\n"},
		{"multi_edit", "multi_edit", map[string]any{"path": "pkg/util.go", "edits": []map[string]any{{"oldString": "package pkg\n", "newString": "package pkg // util\n"}}},
			"--- a/pkg/util.go\n+++ b/pkg/util.go\n@@ -1,4 +1,4 @@\n-package pkg\n+package pkg // util\n \n // Add adds.\n func Add(a, b int) int { return a + b }\n"},
		{"write_file new", "write_file", map[string]any{"path": "new.txt", "content": "one\ntwo"},
			"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"},
		{"write_file over", "write_file", map[string]any{"path": "docs/guide.md", "content": "# Guide\n"},
			"--- a/docs/guide.md\n+++ b/docs/guide.md\n@@ -1,2 +1 @@\n # Guide\n-Hello world\n"},
		{"apply_patch", "apply_patch", map[string]any{"path": "docs/guide.md", "patch": "@@ -1,2 +1,2 @@\n # Guide\n-Hello world\n+Hello there\n"},
			"--- a/docs/guide.md\n+++ b/docs/guide.md\n@@ -1,2 +1,2 @@\n # Guide\n-Hello world\n+Hello there\n"},
		{"edit that cannot apply shows its arguments", "edit_file", map[string]any{"path": "pkg/util.go", "oldString": "absent", "newString": "x", "reason": "r"},
			`{"newString":"x","oldString":"absent","path":"pkg/util.go","reason":"r"}`},
		{"blocked path shows no content", "write_file", map[string]any{"path": ".env", "content": "A=1\n", "reason": "r"},
			`{"content":"A=1\n","path":".env","reason":"r"}`},
		{"command", "shell", map[string]any{"command": "go test ./...", "reason": "r"}, "go test ./..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionApprove}}
			h := newHarness(t, "pulsing", SessionConfig{Mode: ModeConfirmAll, Editor: ed})
			if _, ok := h.e.reg.Get("apply_patch"); !ok {
				if err := h.e.reg.Register(newApplyPatch()); err != nil {
					t.Fatal(err)
				}
			}
			h.call("read_file", map[string]any{"path": "pkg/util.go"})
			h.call("read_file", map[string]any{"path": "docs/guide.md"})
			ed.SetVerdict(editor.DecisionReject)
			before := len(ed.Asked())
			h.call(tt.tool, tt.args)
			if n := len(ed.Asked()) - before; n != 1 {
				t.Fatalf("asked %d times", n)
			}
			if ed.Last().Detail != tt.want {
				t.Errorf("detail =\n%s\nwant\n%s", ed.Last().Detail, tt.want)
			}
			if b, err := os.ReadFile(filepath.Join(h.dir, "pkg/util.go")); err != nil || string(b) != util {
				t.Errorf("the approval changed the file")
			}
		})
	}
}

func TestUnifiedDiffHunks(t *testing.T) {
	var before, after strings.Builder
	for i := 1; i <= 30; i++ {
		before.WriteString(strings.Repeat("x", i%3) + "line\n")
		l := strings.Repeat("x", i%3) + "line\n"
		if i == 5 || i == 25 {
			l = "changed\n"
		}
		after.WriteString(l)
	}
	got := UnifiedDiff("f.txt", before.String(), after.String(), true)
	if n := strings.Count(got, "\n@@ "); n != 2 {
		t.Errorf("%d hunks, want 2 (changes 20 lines apart):\n%s", n, got)
	}
	if !strings.Contains(got, "@@ -2,7 +2,7 @@\n") || !strings.Contains(got, "@@ -22,7 +22,7 @@\n") {
		t.Errorf("hunk headers:\n%s", got)
	}
	if got := UnifiedDiff("f.txt", "a\n", "a\n", true); got != "f.txt: no change\n" {
		t.Errorf("no change = %q", got)
	}
}

// Every answer to a confirmation: approve runs the call, reject (with
// feedback) returns the feedback to the model, always allow runs it and
// stops asking, dismissed refuses it, abort all refuses it and stops the run
// (ErrAborted), with nothing written.
func TestConfirmationAnswers(t *testing.T) {
	tests := []struct {
		name     string
		verdict  editor.Verdict
		written  bool
		result   string
		aborted  bool
		askAgain bool
	}{
		{name: "approve", verdict: editor.Verdict{Decision: editor.DecisionApprove}, written: true, result: `"success":true`, askAgain: true},
		{name: "reject with feedback", verdict: editor.Verdict{Decision: editor.DecisionReject, Feedback: "use y.txt"}, result: "Action cancelled by user Feedback: use y.txt", askAgain: true},
		{name: "always allow", verdict: editor.Verdict{Decision: editor.DecisionAlwaysAllow}, written: true, result: `"success":true`},
		{name: "dismissed", verdict: editor.Verdict{Decision: editor.DecisionDismissed}, result: "Action cancelled by user", askAgain: true},
		{name: "abort all", verdict: editor.Verdict{Decision: editor.DecisionAbort}, result: "Aborted by the user: the whole run stops here", aborted: true, askAgain: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ed := &testkit.Editor{T: t, Verdict: tt.verdict}
			h := newHarness(t, "pulsing", SessionConfig{Mode: ModeConfirmSensitive, Editor: ed})
			res, err := h.e.Call(context.Background(), h.s, "write_file", json.RawMessage(`{"path": "x.txt", "content": "x", "reason": "make x"}`))
			if errors.Is(err, ErrAborted) != tt.aborted || err != nil && !tt.aborted {
				t.Fatalf("err = %v, want aborted = %v", err, tt.aborted)
			}
			if !strings.Contains(res.Output, tt.result) {
				t.Errorf("result = %s, want it to contain %s", res.Output, tt.result)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "x.txt")); (err == nil) != tt.written {
				t.Errorf("x.txt written = %v, want %v", err == nil, tt.written)
			}
			if len(ed.Asked()) != 1 || !ed.Asked()[0].AllowAlways || !ed.Asked()[0].AllowAbort || ed.Asked()[0].Reason != "make x" {
				t.Fatalf("asked %+v, want one tool approval offering always allow and abort all", ed.Asked())
			}
			h.e.Call(context.Background(), h.s, "write_file", json.RawMessage(`{"path": "x.txt", "content": "x2", "reason": "again"}`))
			if again := len(ed.Asked()) == 2; again != tt.askAgain {
				t.Errorf("asked again = %v, want %v", again, tt.askAgain)
			}
		})
	}
}

// allowed_only refuses a dangerous command before anyone is asked, in
// every mode; safe and dev commands go on to confirmation as usual.
func TestAllowedOnlyRefusesBeforeConfirmation(t *testing.T) {
	tests := []struct {
		name, command string
		allowedOnly   bool
		refused       bool
		asked         int
	}{
		{name: "dangerous refused unasked", command: "pip install --user malicious-pkg", allowedOnly: true, refused: true},
		{name: "dangerous in a pipeline refused unasked", command: "ls | xargs rm", allowedOnly: true, refused: true},
		{name: "dev asked", command: "go build ./...", allowedOnly: true, asked: 1},
		{name: "safe not asked", command: "ls", allowedOnly: true},
		{name: "dangerous asked without allowed_only", command: "pip install --user malicious-pkg", asked: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionReject}}
			h := newHarness(t, "pulsing", SessionConfig{Mode: ModeConfirmSensitive, Editor: ed, AllowedOnly: tt.allowedOnly})
			args, _ := json.Marshal(map[string]string{"command": tt.command, "reason": "r"})
			res, err := h.e.Call(context.Background(), h.s, "shell", args)
			if err != nil {
				t.Fatal(err)
			}
			if refused := strings.Contains(res.Output, allowedOnlyRefusal); refused != tt.refused {
				t.Errorf("refused = %v, want %v: %s", refused, tt.refused, res.Output)
			}
			if len(ed.Asked()) != tt.asked {
				t.Errorf("asked %d times, want %d", len(ed.Asked()), tt.asked)
			}
		})
	}
}
