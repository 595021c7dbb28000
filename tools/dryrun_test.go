package tools

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/treehash"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files in testdata/")

func treeHash(t *testing.T, dir string) string {
	t.Helper()
	sum, _, err := treehash.Sum(dir)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// A dry run executes reads, records every write, command and non-read-only
// call, changes nothing (no file, no process), asks nothing, and puts the
// plan in words.
func TestDryRunPlanSummary(t *testing.T) {
	ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionReject}}
	h := newHarness(t, "pulsing", SessionConfig{DryRun: true, AllowDelete: true, Mode: ModeConfirmSensitive, Editor: ed})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.e.Registry().Register(newDeleteFile()))
	must(h.e.Registry().Register(Define("mcp_tracker_create_issue", "files an issue", Write,
		func(context.Context, *Session, struct {
			Reason string   `json:"reason"`
			Title  string   `json:"title"`
			Labels []string `json:"labels,omitempty"`
		}) (Result, error) {
			t.Error("the MCP tool ran in a dry run")
			return Result{}, nil
		})))
	before := treeHash(t, h.dir)
	calls := []struct {
		name string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "pkg/util.go", "reason": "look first"}},
		{"write_file", map[string]any{"path": "pkg/mul.go", "content": "package pkg\n\n// Mul multiplies.\nfunc Mul(a, b int) int { return a * b }\n", "reason": "add Mul"}},
		{"edit_file", map[string]any{"path": "pkg/util.go", "oldString": "// Add adds.\nfunc Add(a, b int) int { return a + b }", "newString": "// Add adds two numbers.\nfunc Add(a, b int) int {\n\treturn a + b\n}", "reason": "document Add"}},
		{"multi_edit", map[string]any{"path": "pkg/util.go", "edits": []map[string]any{{"oldString": "a - b", "newString": "a-b"}, {"oldString": "Sub", "newString": "Minus", "replaceAll": true}}, "reason": "rename Sub"}},
		{"apply_patch", map[string]any{"path": "main.go", "patch": "--- a/main.go\n+++ b/main.go\n@@ -3,3 +3,4 @@\n func main() {\n-\tprintln(\"hello\")\n+\tprintln(\"hello,\")\n+\tprintln(\"world\")\n }\n", "reason": "greet the world"}},
		{"write_file", map[string]any{"path": "docs/guide.md", "content": "# Guide\n", "reason": "shorten the guide"}},
		{"delete_file", map[string]any{"path": "notes.txt", "reason": "stale notes"}},
		{"write_file", map[string]any{"path": "notes.txt", "content": "fresh\n", "reason": "new notes"}},
		{"shell", map[string]any{"command": "go test ./...", "reason": "run the tests"}},
		{"shell", map[string]any{"command": "touch ran.txt && rm -rf build", "reason": "hostile"}},
		{"run_tests", map[string]any{"path": "pkg", "pattern": "TestAdd", "reason": "check Add"}},
		{"run_lint", map[string]any{"fix": true, "reason": "tidy"}},
		{"read_lints", map[string]any{"path": "pkg", "reason": "findings"}},
		{"mcp_tracker_create_issue", map[string]any{"title": "Mul needs tests", "labels": []string{"tests"}, "reason": "track it"}},
	}
	for _, c := range calls {
		res := h.call(c.name, c.args)
		if res.Failed {
			t.Errorf("%s failed in a dry run: %s", c.name, res.Output)
		}
		if c.name != "read_file" && !strings.Contains(res.Output, `"dry_run":true`) {
			t.Errorf("%s was not recorded: %s", c.name, res.Output)
		}
	}
	if after := treeHash(t, h.dir); after != before {
		t.Error("the dry run changed the workspace")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "ran.txt")); err == nil {
		t.Error("the dry run ran a shell command")
	}
	if len(ed.Asked()) != 0 {
		t.Errorf("asked %d confirmations (last %q) for calls a dry run does not run", len(ed.Asked()), ed.Last().Title)
	}
	plan := h.s.DryRunSummary()
	if len(plan) != len(calls)-1 {
		t.Errorf("%d calls recorded, want %d", len(plan), len(calls)-1)
	}
	got := plan.Summary()
	testkit.Golden(t, filepath.Join("testdata", "dryrun", "plan.golden"), []byte(got), *updateGolden)
	// The plan's entries are JSON for programs (autarch agent --dry-run).
	b, err := json.Marshal(plan[0])
	must(err)
	if !strings.Contains(string(b), `"action":"would write pkg/mul.go (4 lines, new file)"`) {
		t.Errorf("entry JSON = %s", b)
	}
}

// Staged entries (a workflow's) are listed under their stage; an empty
// plan says nothing would change.
func TestPlanSummaryStagesAndEmpty(t *testing.T) {
	if got := (Plan{}).Summary(); got != "Dry run: no write or command was planned, so nothing would change.\n" {
		t.Errorf("empty plan = %q", got)
	}
	p := Plan{
		{Tool: "shell", Action: "would run `go mod download` (dev)", Stage: "preflight"},
		{Tool: "write_file", Action: "would overwrite a.go (2 lines)", Path: "a.go", Change: "written (2 lines)", Stage: "pulse pulse-1", Reason: "fix\nit"},
		{Tool: "shell", Action: "would run `go build ./...` (dev)", Stage: "pulse pulse-1"},
	}
	want := "Dry run: 3 actions planned, none executed; nothing was changed.\n" +
		"preflight:\n    1. would run `go mod download` (dev)\n" +
		"pulse pulse-1:\n    2. would overwrite a.go (2 lines) — fix it\n    3. would run `go build ./...` (dev)\n" +
		"Files that would change:\n  a.go: written (2 lines)\n"
	if got := p.Summary(); got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

// A dry run refuses what the tools would refuse, without planning it: a
// path outside the root, a secret file, a deletion that is disabled.
func TestDryRunRefusals(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{DryRun: true})
	if err := h.e.Registry().Register(newDeleteFile()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "../outside.go", "content": "x"}, "outside"},
		{"edit_file", map[string]any{"path": "/etc/passwd", "oldString": "root", "newString": "x"}, "outside"},
		{"write_file", map[string]any{"path": ".env", "content": "X=1"}, "sensitive"},
		{"delete_file", map[string]any{"path": "main.go"}, "deletion disabled"},
	} {
		res := h.call(tc.name, tc.args)
		if !res.Failed || !strings.Contains(strings.ToLower(res.Output), tc.want) {
			t.Errorf("%s %v = %s, want a refusal containing %q", tc.name, tc.args["path"], res.Output, tc.want)
		}
	}
	if plan := h.s.DryRunSummary(); len(plan) != 0 {
		t.Errorf("refused calls were planned: %+v", plan)
	}
}

// TestDryRunMultiFilePatch: an apply_patch that names its files only in
// the diff (the coding-team shape) is planned per file, and refused when
// one of them is outside the root, behind the secret gate, or the diff
// does not parse.
func TestDryRunMultiFilePatch(t *testing.T) {
	h := newHarness(t, "research", SessionConfig{DryRun: true})
	type teamPatch struct {
		Reason string `json:"reason"`
		Patch  string `json:"patch"`
	}
	ran := false
	if err := h.e.Registry().Register(Define("apply_patch", "team apply_patch", Write, func(context.Context, *Session, teamPatch) (Result, error) {
		ran = true
		return Result{}, nil
	})); err != nil {
		t.Fatal(err)
	}
	patch := func(paths ...string) string {
		var b strings.Builder
		for _, p := range paths {
			fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n@@ -1 +1 @@\n-old\n+new\n", p, p)
		}
		return b.String()
	}
	for _, tc := range []struct {
		patch string
		want  string
	}{
		{patch("main.go", "../outside.go"), "outside"},
		{patch("main.go", ".env"), "sensitive"},
		{"this is not a diff", "invalid_patch"},
	} {
		res := h.call("apply_patch", map[string]any{"patch": tc.patch})
		if !res.Failed || !strings.Contains(strings.ToLower(res.Output), tc.want) {
			t.Errorf("apply_patch %q = %s, want a refusal containing %q", tc.patch, res.Output, tc.want)
		}
	}
	if plan := h.s.DryRunSummary(); len(plan) != 0 {
		t.Errorf("refused patches were planned: %+v", plan)
	}
	res := h.call("apply_patch", map[string]any{"patch": patch("main.go", "util.go")})
	plan := h.s.DryRunSummary()
	if res.Failed || ran || len(plan) != 1 || !strings.Contains(plan[0].Action, "main.go, util.go") {
		t.Fatalf("a valid multi-file patch: result %s, ran %v, plan %+v; want it planned for main.go, util.go and not run", res.Output, ran, plan)
	}
}
