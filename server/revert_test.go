package server

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// redoScript is the pulse's second run (after its revert) and the review
// that follows it.
const redoScript = `
-- 08-read.json --
{"tool_calls": [{"name": "read_file", "args": {"path": "calc.go", "reason": "Read again"}}]}
-- 09-edit.json --
{"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "oldString": "func Add(a, b int) int { return a + b }\n", "newString": "func Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n", "reason": "Add Sub again"}}]}
-- 10-done.json --
{"tool_calls": [{"name": "complete_pulse", "args": {"reason": "Done", "summary": "feat(calc): add Sub, subtracting", "filesChanged": ["calc.go"]}}]}
-- 11-review.json --
{"tool_calls": [{"name": "complete_review", "args": {"reason": "Good", "recommendation": "approve", "summary": "Sub subtracts."}}]}
`

// TestRevertRedoOverLSP plans, reverts and redoes a completed workflow's
// pulse with the autarch/planRevert, autarch/revertPulse and
// autarch/redoPulse requests, and reads its receipt (autarch/pulseReceipt): the plan lists the pulse and its files, the
// revert makes it pending and shown as reverted, redo runs it again (with
// the guidance) to completion; mistakes are invalid params that say what
// to do.
func TestRevertRedoOverLSP(t *testing.T) {
	dir := calcRepo(t)
	url, _ := testkit.StartScript(t, workflowScript+redoScript)
	h := newHarness(t, wired)
	var mu sync.Mutex
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		if method == editor.MethodApprove {
			return editor.Verdict{Decision: editor.DecisionApprove}, nil
		}
		return nil, nil
	}
	h.initFolder(dir, "calc", map[string]any{"experimental": map[string]any{"autarch": map[string]any{"approvals": true, "questions": true}}},
		editor.Settings{Model: editor.ModelSettings{Name: "scripted", BaseURL: url}})
	h.setTestKey()
	h.initialized()
	var ref editor.WorkflowRef
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandNewWorkflow,
		"arguments": []any{editor.NewWorkflowParams{Task: "Add Sub", Name: "sub"}}}, &ref); err != nil {
		t.Fatal(err)
	}
	waitHalt(t, h, "Completed")
	first := pulseOf(t, h, ref)
	if first.Status != "Succeeded" || first.Reverted {
		t.Fatalf("before the revert pulse-1 = %+v", first)
	}

	// The done pulse's receipt: its checkpoint, tree and checks.
	var rc editor.PulseReceiptView
	if err := h.call(editor.MethodPulseReceipt, editor.PulseReceiptParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-1"}, &rc); err != nil {
		t.Fatal(err)
	}
	if !rc.Found || rc.Commit != first.Commit || !strings.Contains(rc.Text, "Receipt of pulse commit "+first.Commit) || !strings.Contains(rc.Text, "  tree ") ||
		!strings.Contains(rc.Receipt, `"tree"`) {
		t.Errorf("receipt of pulse-1 = %+v", rc)
	}

	// Mistakes say what to do.
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{editor.MethodPlanRevert, editor.RevertPulseParams{WorkflowID: ref.WorkflowID}, "name the workflow and the pulse"},
		{editor.MethodPlanRevert, editor.RevertPulseParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-9"}, "pulse-9"},
		{editor.MethodRevertPulse, editor.RevertPulseParams{WorkflowID: "nope", Pulse: "pulse-1"}, "nope"},
		{editor.MethodRedoPulse, editor.RedoPulseParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-1"}, "revert it first"},
		{editor.MethodPulseReceipt, editor.PulseReceiptParams{WorkflowID: ref.WorkflowID}, "name the workflow and the pulse"},
	} {
		err := h.call(tc.method, tc.params, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: %v, want invalid params saying %q", tc.method, tc.params, err, tc.want)
		}
	}

	var plan editor.RevertPlanView
	if err := h.call(editor.MethodPlanRevert, editor.RevertPulseParams{WorkflowID: ref.WorkflowID, Pulse: "1"}, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Workflow != "sub" || plan.Pulse != "pulse-1" || len(plan.Pulses) != 1 || plan.Pulses[0].Commit != first.Commit ||
		len(plan.Files) != 1 || plan.Files[0] != "calc.go" || plan.AppliedTo != "" {
		t.Errorf("plan = %+v", plan)
	}
	if p := pulseOf(t, h, ref); p.Status != "Succeeded" {
		t.Errorf("planning changed the pulse: %+v", p)
	}

	var res editor.RevertPulseResult
	if err := h.call(editor.MethodRevertPulse, editor.RevertPulseParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-1"}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Commits) != 1 || len(res.Plan.Pulses) != 1 || !strings.Contains(res.Message, "reverted") {
		t.Errorf("revert = %+v", res)
	}
	reverted := pulseOf(t, h, ref)
	if !reverted.Reverted || reverted.Status != "Proposed" || reverted.Commit != "" {
		t.Errorf("after the revert pulse-1 = %+v, want shown as reverted", reverted)
	}

	if err := h.call(editor.MethodPulseReceipt, editor.PulseReceiptParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-1"}, &rc); err != nil || rc.Found || !strings.Contains(rc.Message, "no checkpoint commit") {
		t.Errorf("receipt of the reverted pulse-1 = %+v, %v; want none, saying why", rc, err)
	}

	var redone editor.WorkflowRef
	if err := h.call(editor.MethodRedoPulse, editor.RedoPulseParams{WorkflowID: ref.WorkflowID, Pulse: "pulse-1", Guidance: "make Sub subtract"}, &redone); err != nil {
		t.Fatal(err)
	}
	if redone.WorkflowID != ref.WorkflowID {
		t.Errorf("redo = %+v", redone)
	}
	waitHalt(t, h, "Completed")
	again := pulseOf(t, h, ref)
	if again.Status != "Succeeded" || again.Reverted || again.Commit == "" || again.Commit == first.Commit || again.Guidance != "make Sub subtract" {
		t.Errorf("after the redo pulse-1 = %+v", again)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
	h.client.Close()
}

// waitHalt waits for the workflow event that ends a run with status.
func waitHalt(t *testing.T, h *harness, status string) {
	t.Helper()
	deadline := time.After(testkit.Patience)
	for {
		select {
		case n := <-h.noteCh:
			var ev editor.WorkflowEvent
			if n.method == editor.MethodWorkflowEvent && json.Unmarshal(n.params, &ev) == nil && ev.Kind == "halt" && ev.Status == status {
				return
			}
		case <-deadline:
			t.Fatalf("the workflow did not reach %s", status)
		}
	}
}

// pulseOf is the workflow's first pulse as the side panel shows it.
func pulseOf(t *testing.T, h *harness, ref editor.WorkflowRef) editor.PulseView {
	t.Helper()
	var d editor.WorkflowDetail
	if err := h.call(editor.MethodWorkflow, ref, &d); err != nil || len(d.Pulses) == 0 {
		t.Fatalf("detail = %+v, %v", d, err)
	}
	return d.Pulses[0]
}
