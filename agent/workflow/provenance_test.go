package workflow_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestToolCallArgsStored: every tool call is stored with the model's
// arguments and call id, research's reads among them (research
// provenance: which files, which lines), also for calls run in one
// parallel batch and for a sub-agent's calls (children of its dispatch
// call).
func TestToolCallArgsStored(t *testing.T) {
	h, cfg := openScenario(t, filepath.Join("testdata", "other", "provenance.txt"))
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	if err != nil && !strings.Contains(err.Error(), "waiting") {
		t.Fatalf("run: %v", err)
	}
	if wf.Stage != string(workflow.StageResearch) {
		t.Fatalf("the workflow is in %s, want research (its card dismissed)", wf.Stage)
	}
	calls, err := h.store.ToolCalls(ctx, wf.ID, "")
	must(t, err)
	type stored struct {
		stage, id, name string
		args            map[string]any
		parent          string // a sub-agent's call: its dispatch call's id
	}
	// The scripted model numbers the calls of each message.
	want := []stored{
		{"scoping", "call_1", "submit_scope", map[string]any{"title": "Add Sub", "recommended_path": "full"}, ""},
		{"research", "call_1", "read_file", map[string]any{"path": "calc.go", "startLine": 3.0, "endLine": 4.0}, ""},
		{"research", "call_2", "read_file", map[string]any{"path": "doc/notes.md"}, ""},
		{"research", "call_3", "grep", map[string]any{"pattern": "func Add"}, ""},
		{"research", "call_1", "dispatch_subagent", map[string]any{"agent_type": "explore"}, ""},
		{"research", "call_1", "read_file", map[string]any{"path": "calc.go", "startLine": 1.0, "endLine": 3.0}, "call_1"},
		{"research", "call_1", "submit_research", map[string]any{"summary": "calc has Add in calc.go."}, ""},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d tool calls stored, want %d: %+v", len(calls), len(want), calls)
	}
	for i, w := range want {
		c := calls[i]
		var args map[string]any
		if err := json.Unmarshal(c.Args, &args); err != nil {
			t.Fatalf("call %d (%s): args %s: %v", i, c.Name, c.Args, err)
		}
		if c.Stage != w.stage || c.Name != w.name || c.CallID != w.id || c.ParentCallID != w.parent {
			t.Errorf("call %d = %s %s %s (parent %q), want %s %s %s (parent %q)", i, c.Stage, c.CallID, c.Name, c.ParentCallID, w.stage, w.id, w.name, w.parent)
		}
		if (c.Subagent != "") != (w.parent != "") {
			t.Errorf("call %d (%s): sub-agent type %q with parent %q", i, c.Name, c.Subagent, w.parent)
		}
		for k, v := range w.args {
			if args[k] != v {
				t.Errorf("call %d (%s): args[%q] = %v, want %v; stored %s", i, c.Name, k, args[k], v, c.Args)
			}
		}
		if args["reason"] != c.Reason || c.Reason == "" {
			t.Errorf("call %d (%s): reason %q, args' reason %v", i, c.Name, c.Reason, args["reason"])
		}
	}
}

// openScenario makes the harness of one scenario file, for tests that
// check more than its want.json.
func openScenario(t *testing.T, path string) (*harness, scenarioConfig) {
	t.Helper()
	sc := testkit.LoadScenario(t, path)
	var cfg scenarioConfig
	sc.Decode(t, &cfg, nil)
	return newHarness(t, sc, cfg), cfg
}
