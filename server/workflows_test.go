package server

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/app"

	"go.uber.org/goleak"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

const workflowScript = `
-- 01-scope.json --
{"tool_calls": [{"name": "submit_scope", "args": {"reason": "Clear", "title": "Add Sub", "description": "Add Sub.", "in_scope": ["Sub"], "out_of_scope": [], "recommended_path": "quick"}}]}
-- 02-preflight.json --
{"tool_calls": [{"name": "complete_preflight", "args": {"reason": "Nothing to do", "summary": "ok", "setupCommands": [], "buildSuccess": true, "baselinesRecorded": 0}}]}
-- 03-read.json --
{"tool_calls": [{"name": "read_file", "args": {"path": "calc.go", "reason": "Read before editing"}}]}
-- 04-edit.json --
{"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "oldString": "func Add(a, b int) int { return a + b }\n", "newString": "func Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a + b }\n", "reason": "Add Sub"}}]}
-- 05-done.json --
{"tool_calls": [{"name": "complete_pulse", "args": {"reason": "Done", "summary": "feat(calc): add Sub", "filesChanged": ["calc.go"]}}]}
-- 06-comment.json --
{"tool_calls": [{"name": "add_line_comment", "args": {"reason": "Wrong operator", "file_path": "calc.go", "start_line": 5, "severity": "High", "category": "bug", "description": "Sub adds.", "suggestion": "func Sub(a, b int) int { return a - b }"}}]}
-- 07-review.json --
{"tool_calls": [{"name": "complete_review", "args": {"reason": "Bug", "recommendation": "reject", "summary": "Sub adds instead of subtracting."}}]}
`

// TestWorkflowOverLSP drives a whole quick workflow as an editor would:
// executeCommand, autarch/approve answered by the client, workflow events,
// progress, review diagnostics, a quick fix, the detail view, a diff and
// apply as a workspace edit.
func TestWorkflowOverLSP(t *testing.T) {
	dir := calcRepo(t)
	url, _ := testkit.StartScript(t, workflowScript)

	// No goroutine outlives the session: runs, progress watchers, indexing,
	// debounced updates and the connection all end with exit.
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		goleak.VerifyNone(t, ignore,
			goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"), // the model's idle keep-alive connection
			goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
			goleak.IgnoreAnyFunction("net/http.(*conn).serve"), // the scripted model's side of it
		)
	})
	h := newHarness(t, wired)
	rec := h.recordEditor(func(editor.Approval) editor.Verdict { return editor.Verdict{Decision: editor.DecisionApprove} })
	init := h.initFolder(dir, "calc", map[string]any{"window": map[string]any{"workDoneProgress": true}, "workspace": map[string]any{"applyEdit": true},
		"experimental": map[string]any{"autarch": map[string]any{"approvals": true, "questions": true}}},
		editor.Settings{Model: editor.ModelSettings{Name: "scripted", BaseURL: url}})
	h.setTestKey()
	if !init.Capabilities.CodeActionProvider {
		t.Error("codeActionProvider not advertised")
	}
	h.initialized()

	var ref editor.WorkflowRef
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandNewWorkflow,
		"arguments": []any{editor.NewWorkflowParams{Task: "Add Sub", Name: "sub"}}}, &ref); err != nil {
		t.Fatal(err)
	}
	if ref.Name != "sub" || ref.WorkflowID == "" {
		t.Fatalf("ref = %+v", ref)
	}

	// Events until the workflow completes; diagnostics and progress on the way.
	var sawToolCall, sawProgress bool
	var diags []diagnostic
	deadline := time.After(60 * time.Second)
	for done := false; !done || diags == nil; {
		select {
		case n := <-h.noteCh:
			switch n.method {
			case editor.MethodWorkflowEvent:
				var ev editor.WorkflowEvent
				json.Unmarshal(n.params, &ev)
				sawToolCall = sawToolCall || ev.Kind == "tool_call" && ev.Reason == "Add Sub"
				done = done || ev.Kind == "halt" && ev.Status == "Completed"
			case "$/progress":
				sawProgress = sawProgress || strings.Contains(string(n.params), "pulse pulse-1")
			case "textDocument/publishDiagnostics":
				var p struct {
					URI         string       `json:"uri"`
					Diagnostics []diagnostic `json:"diagnostics"`
				}
				json.Unmarshal(n.params, &p)
				// Before the workflow is applied, comments anchor to the reviewed commit's file.
				if strings.HasPrefix(p.URI, "autarch-git:/calc.go?commit=") && len(p.Diagnostics) > 0 {
					diags = p.Diagnostics
				}
			}
		case <-deadline:
			t.Fatalf("the workflow did not complete over LSP (done %v, diagnostics %v)", done, diags)
		}
	}
	if !sawToolCall || !sawProgress {
		t.Errorf("tool call event seen %v, pulse progress seen %v", sawToolCall, sawProgress)
	}
	rec.mu.Lock()
	// The scope card, then edit_file (sensitive in confirm-sensitive mode).
	if len(rec.approvals) != 2 || rec.approvals[0].Kind != "scope" || rec.approvals[0].WorkflowID != ref.WorkflowID || rec.approvals[1].Kind != "tool" || rec.approvals[1].Reason != "Add Sub" {
		t.Errorf("approvals = %+v", rec.approvals)
	}
	// Every client sees an edit as a diff, not as the call's JSON.
	if len(rec.approvals) == 2 && !strings.HasPrefix(rec.approvals[1].Detail, "--- a/calc.go\n+++ b/calc.go\n@@ ") {
		t.Errorf("the edit's approval shows %q, want a unified diff", rec.approvals[1].Detail)
	}
	rec.mu.Unlock()
	d := diags[0]
	if d.Source != "autarch" || d.Severity != 1 || d.Range.Start.Line != 4 || !strings.Contains(d.Message, "[High · bug · new] Sub adds.") {
		t.Errorf("diagnostic = %+v", d)
	}

	var actions []struct {
		Edit struct {
			Changes map[string][]struct {
				NewText string `json:"newText"`
			} `json:"changes"`
		} `json:"edit"`
	}
	if err := h.call("textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": pathURI(filepath.Join(dir, "calc.go"))},
		"range": d.Range, "context": map[string]any{"diagnostics": diags}}, &actions); err != nil {
		t.Fatal(err)
	}
	if len(actions) != 1 || actions[0].Edit.Changes[pathURI(filepath.Join(dir, "calc.go"))][0].NewText != "func Sub(a, b int) int { return a - b }\n" {
		t.Errorf("code actions = %+v", actions)
	}

	var detail editor.WorkflowDetail
	if err := h.call(editor.MethodWorkflow, editor.WorkflowRef{WorkflowID: ref.WorkflowID}, &detail); err != nil {
		t.Fatal(err)
	}
	if detail.Summary.Stage != "done" || len(detail.Pulses) != 1 || detail.Pulses[0].Status != "Succeeded" || detail.Review == nil ||
		detail.Review.Recommendation != "reject" || len(detail.Review.Comments) != 1 || len(detail.Activity) == 0 || detail.Scope == nil {
		t.Errorf("detail = %+v", detail)
	}
	var list []editor.WorkflowSummary
	if err := h.call(editor.MethodWorkflows, map[string]any{}, &list); err != nil || len(list) != 1 || list[0].PulsesDone != 1 {
		t.Errorf("workflows = %+v, %v", list, err)
	}

	var diff editor.PulseDiff
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandPulseDiff,
		"arguments": []any{editor.PulseDiffParams{WorkflowID: ref.WorkflowID, PulseID: "pulse-1"}}}, &diff); err != nil {
		t.Fatal(err)
	}
	if len(diff.Files) != 1 || diff.Files[0].Path != "calc.go" || diff.Files[0].Additions != 2 {
		t.Errorf("pulse diff = %+v", diff)
	}
	var file editor.FileAtResult
	if err := h.call(editor.MethodFileAt, editor.FileAtParams{Commit: diff.Head, Path: "calc.go"}, &file); err != nil || !strings.Contains(file.Text, "func Sub") {
		t.Errorf("fileAt = %+v, %v", file, err)
	}

	var applied editor.ApplyWorkflowResult
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandApplyWorkflow,
		"arguments": []any{editor.ApplyWorkflowParams{WorkflowID: ref.WorkflowID, Mode: "edit"}}}, &applied); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	if !applied.Applied || len(applied.Files) != 1 || len(rec.edits) != 1 || !strings.Contains(string(rec.edits[0]), `func Sub(a, b int) int { return a + b }`) {
		t.Errorf("apply = %+v, edits %s", applied, rec.edits)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.go")); strings.Contains(string(b), "Sub") {
		t.Error("the server wrote the user's file itself; apply must go through the editor")
	}
	rec.mu.Unlock()

	// The editor applied the edit: the buffer now holds the reviewed
	// content, and the comments move to the user's file.
	h.client.Notify(context.Background(), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": pathURI(filepath.Join(dir, "calc.go")), "version": 1, "languageId": "go", "text": file.Text}})
	waitPublished(t, h, 10*time.Second, "the review's diagnostics did not move to the applied file", func(uri string, ds []diagnostic) bool {
		return uri == pathURI(filepath.Join(dir, "calc.go")) && len(ds) == 1
	})
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
	h.client.Close()
	reloaded(t, dir)
}

// waitPublished waits for a textDocument/publishDiagnostics that match
// accepts, failing with msg after d.
func waitPublished(t *testing.T, h *harness, d time.Duration, msg string, match func(uri string, ds []diagnostic) bool) []diagnostic {
	t.Helper()
	for end := time.After(d); ; {
		select {
		case n := <-h.noteCh:
			var p struct {
				URI         string       `json:"uri"`
				Diagnostics []diagnostic `json:"diagnostics"`
			}
			json.Unmarshal(n.params, &p)
			if n.method == "textDocument/publishDiagnostics" && match(p.URI, p.Diagnostics) {
				return p.Diagnostics
			}
		case <-end:
			t.Fatal(msg)
		}
	}
}

// reloaded is the editor reloaded over the same folder: a new server,
// which shows the review's diagnostics again as soon as it is initialized,
// before any workflow event.
func reloaded(t *testing.T, dir string) {
	h := newHarness(t, wired)
	h.initFolder(dir, "calc", map[string]any{}, nil)
	h.initialized()
	ds := waitPublished(t, h, 20*time.Second, "after a reload the review's diagnostics were not shown again", func(uri string, _ []diagnostic) bool {
		return strings.HasSuffix(uri, "/calc.go") || strings.Contains(uri, "calc.go?commit=")
	})
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "Sub adds.") || len(ds[0].Data) == 0 {
		t.Errorf("restored diagnostics = %+v", ds)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
	h.client.Close()
}

// diagnostic is what the test reads of a published diagnostic.
type diagnostic struct {
	Range struct {
		Start struct {
			Line int `json:"line"`
		} `json:"start"`
	} `json:"range"`
	Severity int             `json:"severity"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data"`
}

// wired gives the server the session cmd/autarch gives it: a model that
// follows the settings, the code search, confirm-sensitive tools.
func wired(s *Server) {
	var mu sync.Mutex
	var model agent.Model
	var name string
	s.cfg.Settings = func(m editor.ModelSettings, key string) {
		mu.Lock()
		defer mu.Unlock()
		model, name = openai.New(openai.Config{BaseURL: m.BaseURL, APIKey: key, Stream: true}), m.Name
	}
	s.cfg.Session = func(p SessionParams) *app.Session {
		return app.New(app.Config{Editor: p.Editor, Document: p.Document, Diagnostics: p.Diagnostics, Events: p.Events, Log: s.log,
			Wire: func(ctx context.Context, _ *workflow.Project, cfg *workflow.Config) error {
				mu.Lock()
				defer mu.Unlock()
				cfg.Model, cfg.Settings, cfg.Commands = model, agent.Settings{Model: name}, tools.CommandPolicy{}
				return nil
			},
			Search: func(folder string) workflow.CodeSearch {
				return codesearch.New(codesearch.Config{Root: folder, Editor: p.Editor, Log: s.log})
			}})
	}
}
