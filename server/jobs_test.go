package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

const jobScript = `
-- 01-branch.json --
{"expect": {"lastUserContains": "Task: Add Sub"}, "tool_calls": [{"name": "create_branch", "args": {"reason": "My branch", "name": "add-sub"}}]}
-- 02-ask.json --
{"tool_calls": [{"name": "request_human_review", "args": {"reason": "Sub is new API: wanted?", "severity": "high", "context": {"file": "calc.go"}}}]}
-- 03-patch.json --
{"expect": {"lastToolResultContains": "\"feedback\":\"yes, add it\""},
 "tool_calls": [{"name": "apply_patch", "args": {"reason": "Add Sub", "patch": "--- a/calc.go\n+++ b/calc.go\n@@ -1,3 +1,5 @@\n package calc\n \n func Add(a, b int) int { return a + b }\n+\n+func Sub(a, b int) int { return a - b }\n"}}]}
-- 04-commit.json --
{"expect": {"lastToolResultContains": "\"applied\":true"}, "tool_calls": [{"name": "commit_changes", "args": {"reason": "Commit", "message": "feat(calc): add Sub"}}]}
`

// TestJobOverLSP drives a job as an editor would: autarch.startJob, tool
// approvals answered, the escalation's approval dismissed (the job waits,
// autarch/jobs shows it), autarch.answerEscalation (the job resumes and
// the agent gets the answer), the commit in autarch/jobs, and
// autarch.applyJob as a workspace edit.
func TestJobOverLSP(t *testing.T) {
	h, url, model, dir := jobServer(t, jobScript)
	rec := h.recordEditor(func(a editor.Approval) editor.Verdict {
		if a.Kind == editor.ApprovalEscalation {
			return editor.Verdict{Decision: editor.DecisionDismissed}
		}
		return editor.Verdict{Decision: editor.DecisionApprove}
	})
	initJobServer(t, h, url, dir)
	exec := h.executeCommand
	if err := exec(editor.CommandStartJob, editor.StartJobParams{Task: "Add Sub", Mode: "wizard"}, nil); err == nil || !strings.Contains(err.Error(), "use mechanic") {
		t.Errorf("a bad mode was accepted: %v", err)
	}
	var ref editor.JobRef
	if err := exec(editor.CommandStartJob, editor.StartJobParams{Task: "Add Sub"}, &ref); err != nil || ref.JobID == "" {
		t.Fatalf("startJob = %+v, %v", ref, err)
	}
	waitJob := func(status string) editor.JobSummary { return h.waitJob(status) }
	waiting := waitJob("Waiting")
	if len(waiting.Escalations) != 1 || waiting.Escalations[0].Status != "Pending" || waiting.Escalations[0].Severity != "high" || !strings.HasPrefix(waiting.Branch, "ai/"+ref.JobID[:8]+"/add-sub") {
		t.Fatalf("waiting job = %+v", waiting)
	}
	rec.mu.Lock()
	var escalations []editor.Approval
	for _, a := range rec.approvals {
		if a.Kind == editor.ApprovalEscalation {
			escalations = append(escalations, a)
		}
	}
	if len(escalations) != 1 || escalations[0].JobID != ref.JobID || !strings.Contains(escalations[0].Context, "calc.go") || escalations[0].Reason != "Sub is new API: wanted?" {
		t.Errorf("escalation approvals = %+v", escalations)
	}
	rec.mu.Unlock()
	if err := exec(editor.CommandAnswerEscalation, editor.AnswerEscalationParams{JobID: ref.JobID, EscalationID: "esc-nope", Approved: true}, nil); err == nil {
		t.Error("an unknown escalation was answered")
	}
	if err := exec(editor.CommandAnswerEscalation, editor.AnswerEscalationParams{JobID: ref.JobID, EscalationID: waiting.Escalations[0].ID, Approved: true, Feedback: "yes, add it"}, nil); err != nil {
		t.Fatal(err)
	}
	done := waitJob("Done")
	if len(done.Commits) != 1 || strings.TrimSpace(done.Commits[0].Message) != "feat(calc): add Sub" || !done.Escalations[0].Approved || done.Iterations != 4 {
		t.Errorf("done job = %+v", done)
	}
	checkJobActivity(t, h, done)
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
	var applied editor.ApplyWorkflowResult
	if err := exec(editor.CommandApplyJob, editor.ApplyJobParams{JobID: ref.JobID, Mode: "edit"}, &applied); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	if !applied.Applied || len(rec.edits) != 1 || !strings.Contains(string(rec.edits[0]), "func Sub(a, b int) int { return a - b }") {
		t.Errorf("applyJob = %+v, edits %s", applied, rec.edits)
	}
	rec.mu.Unlock()
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.go")); strings.Contains(string(b), "Sub") {
		t.Error("the server wrote the user's file itself; apply must go through the editor")
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code %d after shutdown", code)
	}
	h.client.Close()
}

// jobServer makes a git repository with calc.go, a scripted model
// answering script and a server harness (not yet initialized).
func jobServer(t *testing.T, script string) (h *harness, url string, model *scripted.Server, dir string) {
	t.Helper()
	dir = calcRepo(t)
	url, model = testkit.StartScript(t, script)
	return newHarness(t, wired), url, model, dir
}

// initJobServer initializes the harness on dir with the scripted model
// at url and an API key.
func initJobServer(t *testing.T, h *harness, url, dir string) {
	t.Helper()
	h.initFolder(dir, "calc", map[string]any{"workspace": map[string]any{"applyEdit": true}, "experimental": map[string]any{"autarch": map[string]any{"approvals": true}}},
		editor.Settings{Model: editor.ModelSettings{Name: "scripted", BaseURL: url}})
	h.setTestKey()
	h.initialized()
}

func (h *harness) executeCommand(command string, arg, result any) error {
	return h.call("workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, result)
}

// waitJob polls autarch/jobs until the only job has the status.
func (h *harness) waitJob(status string) editor.JobSummary {
	h.t.Helper()
	var job editor.JobSummary
	testkit.CheckFor(h.t, 60*time.Second, 50*time.Millisecond, func() error {
		var list []editor.JobSummary
		if err := h.call(editor.MethodJobs, map[string]any{}, &list); err != nil {
			h.t.Fatal(err)
		}
		if len(list) != 1 || list[0].Status != status {
			return fmt.Errorf("the job never became %s: %+v", status, list)
		}
		job = list[0]
		return nil
	})
	return job
}

// checkJobActivity checks a done job's stored activity (its tool calls in
// order, with call ids and times; escalations placed in time) and that the
// live tool_call events named the same calls.
func checkJobActivity(t *testing.T, h *harness, done editor.JobSummary) {
	t.Helper()
	var tools, ids []string
	for _, a := range done.Activity {
		tools = append(tools, a.Tool)
		ids = append(ids, a.CallID)
		if a.Stage != "job" || a.Time == "" || a.CallID == "" || a.Failed {
			t.Errorf("activity entry %+v: want stage job, a time and a call id, not failed", a)
		}
	}
	if want := []string{"create_branch", "request_human_review", "apply_patch", "commit_changes"}; !slices.Equal(tools, want) {
		t.Errorf("activity tools = %v, want %v", tools, want)
	}
	if len(done.Escalations) == 1 {
		e := done.Escalations[0]
		if _, err := time.Parse(time.RFC3339, e.CreatedAt); err != nil || e.ResolvedAt < e.CreatedAt {
			t.Errorf("escalation times created %q resolved %q", e.CreatedAt, e.ResolvedAt)
		}
	}
	var live []string
	for {
		select {
		case n := <-h.noteCh:
			var ev editor.JobEvent
			if n.method == editor.MethodJobEvent && json.Unmarshal(n.params, &ev) == nil && ev.Kind == "tool_call" {
				live = append(live, ev.ToolCallID)
			}
			continue
		default:
		}
		break
	}
	if !slices.Equal(live, ids) {
		t.Errorf("live tool_call events named calls %q, stored %q", live, ids)
	}
}

// TestStopJobOverLSP stops a job while its model is answering
// (autarch.stopJob): it becomes Stopped, the user is told to resume it,
// and bad references are refused in words.
func TestStopJobOverLSP(t *testing.T) {
	h, url, model, dir := jobServer(t, `
-- 01-slow.json --
{"delay_ms": 30000, "text": "too late"}
`)
	h.onCall = func(method string, params json.RawMessage) (any, error) { return nil, nil }
	initJobServer(t, h, url, dir)
	for _, tc := range []struct {
		ref  editor.JobRef
		want string
	}{
		{editor.JobRef{}, "jobId is required"},
		{editor.JobRef{JobID: "nope-nope"}, "no job with id or name"},
	} {
		if err := h.executeCommand(editor.CommandStopJob, tc.ref, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("stopJob(%+v) = %v, want %q", tc.ref, err, tc.want)
		}
	}
	var ref editor.JobRef
	if err := h.executeCommand(editor.CommandStartJob, editor.StartJobParams{Task: "Add Sub"}, &ref); err != nil {
		t.Fatal(err)
	}
	h.waitJob("Running")
	testkit.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if model.Remaining() > 0 {
			return errors.New("the job never asked the model")
		}
		return nil
	})
	if err := h.executeCommand(editor.CommandStopJob, editor.JobRef{JobID: ref.JobID}, nil); err != nil {
		t.Fatal(err)
	}
	stopped := h.waitJob("Stopped")
	if stopped.StatusReason != "stopped by the user" {
		t.Errorf("stopped job reason %q", stopped.StatusReason)
	}
	for end := time.Now().Add(10 * time.Second); ; {
		n := h.waitNote("window/showMessage")
		var m struct{ Message string }
		json.Unmarshal(n.params, &m)
		if strings.Contains(m.Message, "stopped") {
			if !strings.Contains(m.Message, "resume it from the side panel") {
				t.Errorf("stop message %q does not say what to do next", m.Message)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatal("no message said the job stopped")
		}
	}
}

// calcRepo makes a git repository on main with one commit of calc.go
// (func Add).
func calcRepo(t *testing.T) string {
	t.Helper()
	// a Go module: commit_changes finds its test runner (without one it
	// asks before committing unverified work, 003-30)
	return testkit.NewRepo(t, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a + b }\n", "go.mod": "module calc\n\ngo 1.22\n"})
}
