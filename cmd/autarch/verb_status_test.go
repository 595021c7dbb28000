package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// statusNow is the golden test's clock: the store's, and status's "now".
var statusNow = time.Date(2026, 11, 25, 3, 0, 0, 0, time.UTC)

// leakedToken is a secret a model put in a call's arguments: status must
// never print it.
const leakedToken = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// at is a time before statusNow.
func at(secondsBefore int) time.Time { return before(statusNow, secondsBefore) }

func before(now time.Time, seconds int) time.Time {
	return now.Add(-time.Duration(seconds) * time.Second)
}

// seedActivity records, through the store's API, a live workflow with a
// pulse, a sub-agent's calls, a refusal, an error and a running call
// (whose command carries a secret); a stopped workflow whose last call
// never finished; and a running job with its calls and the assistant
// messages that made them, the calls' times seconds before now. It returns
// the workflow and job ids.
func seedActivity(t *testing.T, st *store.Store, now time.Time) (live, stopped, job string) {
	t.Helper()
	at := func(seconds int) time.Time { return before(now, seconds) }
	ctx := context.Background()
	wf := store.Workflow{ID: "wf-live", Name: "fix-login", Task: "fix the login", Stage: "pulsing", Status: store.WorkflowActive}
	old := store.Workflow{ID: "wf-old", Name: "old-task", Task: "an old task", Stage: "research", Status: store.WorkflowStopped}
	for _, w := range []*store.Workflow{&wf, &old} {
		if err := st.CreateWorkflow(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	pulse := store.Pulse{ID: "pulse-1", WorkflowID: wf.ID, PlannedID: "quick-1", Description: "fix it"}
	if err := st.AddPulse(ctx, &pulse); err != nil {
		t.Fatal(err)
	}
	calls := []store.ToolCall{
		{WorkflowID: wf.ID, Stage: "research", CallID: "call_1", Name: "grep", Args: json.RawMessage(`{"pattern":"func Login","reason":"find the handler"}`),
			Reason: "find the handler", ResultSummary: "auth/login.go:12", StartedAt: at(300), EndedAt: at(299)},
		{WorkflowID: wf.ID, Stage: "research", CallID: "call_2", Name: "dispatch_subagent",
			Args:   json.RawMessage(`{"agent_type":"explore","task":"map the auth package","context":"line one\nline two"}`),
			Reason: "explore auth", ResultSummary: `{"summary":"…"}`, StartedAt: at(290), EndedAt: at(250)},
		{WorkflowID: wf.ID, Stage: "research", CallID: "sub_1", ParentCallID: "call_2", Subagent: "explore", Name: "read_file",
			Args: json.RawMessage(`{"path":"auth/login.go","start_line":1}`), ResultSummary: "package auth", StartedAt: at(289), EndedAt: at(288)},
		{WorkflowID: wf.ID, Stage: "pulsing", PulseID: pulse.ID, CallID: "call_3", Name: "write_file",
			Args:          json.RawMessage(`{"path":".env","content":"A=1\nB=2\n"}`),
			ResultSummary: `{"blocked":true,"reason":"sensitive path .env"}`, Outcome: kernel.OutcomeRefused, StartedAt: at(200), EndedAt: at(200)},
		{WorkflowID: wf.ID, Stage: "pulsing", PulseID: pulse.ID, CallID: "call_4", Name: "shell", Args: json.RawMessage(`{"command":"rm -rf build","timeout":30}`),
			ResultSummary: `{"success":false,"error":"Action cancelled by user"}`, Outcome: kernel.OutcomeRefused, StartedAt: at(150), EndedAt: at(140)},
		{WorkflowID: wf.ID, Stage: "pulsing", PulseID: pulse.ID, CallID: "call_5", Name: "edit_file",
			Args:          json.RawMessage(`{"path":"auth/login.go","oldString":"a","newString":"b"}`),
			ResultSummary: `{"success":false,"error":"oldString not found"}`, Failed: true, StartedAt: at(100), EndedAt: at(99)},
		{WorkflowID: wf.ID, Stage: "pulsing", PulseID: pulse.ID, CallID: "call_6", Name: "shell",
			Args:   json.RawMessage(`{"command":"GITHUB_TOKEN=` + leakedToken + ` go test ./...","env":{"password":"hunter2"}}`),
			Reason: "run the tests with token " + leakedToken, StartedAt: at(12)},
		{WorkflowID: old.ID, Stage: "research", CallID: "call_1", Name: "web_search", Args: json.RawMessage(`{"query":"oauth pkce","api_key":"short"}`),
			StartedAt: at(5000)},
	}
	for i := range calls {
		if err := st.AddToolCall(ctx, &calls[i]); err != nil {
			t.Fatal(err)
		}
	}
	j := store.Job{ID: "job1", Name: "fix-add", Task: "fix Add", Mode: "mechanic", BaseRef: "main", BaseCommit: "abc"}
	if err := st.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func() error{
		func() error {
			return st.AddJobMessage(ctx, &store.JobMessage{JobID: j.ID, Role: "assistant",
				Data: json.RawMessage(`{"tool_calls":[{"id":"j1","name":"read_file","args":{"path":"add.go"}},{"id":"j2","name":"run_tests","args":{"package":"./..."}}]}`)})
		},
		func() error {
			return st.StartJobToolCall(ctx, &store.JobToolCall{JobID: j.ID, CallID: "j1", Name: "read_file", Reason: "read Add"})
		},
		func() error { return st.FinishJobToolCall(ctx, j.ID, "j1", "package add", kernel.OutcomeOK) },
		func() error {
			return st.StartJobToolCall(ctx, &store.JobToolCall{JobID: j.ID, CallID: "j2", Name: "run_tests"})
		},
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return wf.ID, old.ID, j.ID
}

func TestStatusActivityGolden(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t, store.Options{Now: func() time.Time { return statusNow }})
	live, stopped, jobID := seedActivity(t, st, statusNow)
	rows := []editor.WorkflowSummary{
		{ID: live, Name: "fix-login", Task: "fix the login", Stage: "pulsing", Status: string(store.WorkflowActive), UpdatedAt: statusNow.Format(time.RFC3339)},
		{ID: stopped, Name: "old-task", Task: "an old task", Stage: "research", Status: string(store.WorkflowStopped), UpdatedAt: statusNow.Format(time.RFC3339)},
	}
	act := newActivityLister(defaultStatusCalls, statusNow)
	workflows, err := withPulses(ctx, st, rows, act)
	if err != nil {
		t.Fatal(err)
	}
	jobAct, err := act.job(ctx, st, jobID, string(store.JobRunning))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.MarshalIndent(map[string]any{"workflows": workflows, "jobToolActivity": map[string]any{"fix-add": jobAct}}, "", "  ")
	testkit.Golden(t, filepath.Join("testdata", "status-activity.golden"), append(got, '\n'), *update)
	if strings.Contains(string(got), leakedToken) || strings.Contains(string(got), "hunter2") {
		t.Errorf("status prints a secret of the calls' arguments:\n%s", got)
	}

	// --calls 0: the JSON is the one before tool activity existed.
	none, err := withPulses(ctx, st, rows, newActivityLister(0, statusNow))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(none); strings.Contains(string(b), "toolActivity") {
		t.Errorf("--calls 0 still shows activity: %s", b)
	}
	// --calls 2: the latest two, the counts still over every call.
	two, err := withPulses(ctx, st, rows, newActivityLister(2, statusNow))
	if err != nil {
		t.Fatal(err)
	}
	if a := two[0].ToolActivity; len(a.Calls) != 2 || a.Calls[1].ID != "call_6" || a.Total != 7 || a.Counts["shell"] != 2 {
		t.Errorf("--calls 2 = %+v", a)
	}
}

func TestCallStatusAndLine(t *testing.T) {
	act := newActivityLister(1, statusNow)
	tests := []struct {
		name string
		rec  callRecord
		live bool
		want string // status
		line string
	}{
		{"running", callRecord{tool: "shell", args: json.RawMessage(`{"command":"go test ./..."}`), started: at(12)}, true,
			"running", "running shell `go test ./...` for 12s"},
		{"process gone", callRecord{tool: "shell", args: json.RawMessage(`{"command":"go test ./..."}`), started: at(12)}, false,
			"interrupted", "interrupted in shell `go test ./...`"},
		{"ok", callRecord{tool: "read_file", args: json.RawMessage(`{"path":"a.go"}`), outcome: kernel.OutcomeOK, started: at(42), ended: at(40)}, true,
			"ok", "last call read_file `a.go`: ok in 2s, 40s ago"},
		{"error", callRecord{tool: "edit_file", summary: `{"error":"oldString not found"}`, outcome: kernel.OutcomeFailed, started: at(1), ended: at(1)}, true,
			"error", "last call edit_file: error in 0s, 1s ago"},
		{"guardrail", callRecord{tool: "shell", summary: `{"success":false,"error":"Guardrail: command blocked (rm)"}`, outcome: kernel.OutcomeRefused, started: at(3), ended: at(3)}, true,
			"refused", "last call shell: refused in 0s, 3s ago"},
		{"hook", callRecord{tool: "shell", summary: `{"success":false,"error":"Blocked by hook: no"}`, outcome: kernel.OutcomeRefused, started: at(3), ended: at(3)}, true, "refused", ""},
		{"user", callRecord{tool: "shell", summary: `{"success":false,"error":"Action cancelled by user Feedback: no"}`, outcome: kernel.OutcomeRefused, started: at(3), ended: at(3)}, true, "refused", ""},
		{"allowed_only", callRecord{tool: "shell", summary: `{"success":false,"error":"Command classified as 'dangerous' and allowed_only=True"}`, outcome: kernel.OutcomeRefused, started: at(3), ended: at(3)}, true, "refused", ""},
		{"secret gate", callRecord{tool: "read_file", summary: `{"blocked":true,"reason":"secret"}`, outcome: kernel.OutcomeRefused, started: at(3), ended: at(3)}, true, "refused", ""},
		{"sub-agent", callRecord{tool: "grep", args: json.RawMessage(`{"pattern":"x"}`), parentCallID: "call_2", subagent: "explore", started: at(2)}, true,
			"running", "running grep `x` for 2s (explore sub-agent of call call_2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := act.view(tc.rec, tc.live)
			if v.Status != tc.want {
				t.Errorf("status = %q, want %q", v.Status, tc.want)
			}
			if tc.line != "" && v.line() != tc.line {
				t.Errorf("line = %q, want %q", v.line(), tc.line)
			}
			if tc.want == "interrupted" && v.DurationMs != nil {
				t.Errorf("an interrupted call has a duration: %d", *v.DurationMs)
			}
		})
	}
}

func TestArgsSummaryBlocksSecrets(t *testing.T) {
	r := newActivityLister(1, statusNow).redact
	tests := []struct {
		args string
		want string
	}{
		{`{"command":"go test ./...","reason":"why"}`, "go test ./..."},
		{`{"path":"a.go","start_line":3,"end_line":9}`, "a.go end_line=9 start_line=3"},
		{`{"path":"a.go","content":"x\ny\nz"}`, "a.go content=(3 lines)"},
		{`{"edits":[{"a":1},{"b":2}],"path":"a.go"}`, "a.go edits=[2 items]"},
		{`{"command":"curl -H 'Authorization: Bearer ` + leakedToken + `' https://x"}`, "[blocked]"},
		{`{"command":"export GITHUB_TOKEN=` + leakedToken + `"}`, "[blocked]"},
		{`{"query":"x","api_key":"short"}`, "x api_key=[blocked]"},
		{`{"headers":{"Authorization":"Bearer x"},"url":"https://x"}`, "https://x headers={1 keys}"},
		{`{"password":12345}`, "password=[blocked]"},
		{`{"task":"map auth","agent_type":"explore","context":"say \"hi\" twice"}`, `map auth agent_type=explore context="say \"hi\" twice"`},
		{`{"note":"` + leakedToken + `"}`, "note=[blocked]"},
		{`"GITHUB_TOKEN=` + leakedToken + `"`, "[blocked]"},
		{`not json ` + leakedToken, "[blocked]"},
		{``, ""},
		{`{"path":"` + strings.Repeat("é", 200) + `"}`, strings.Repeat("é", maxShownArgs) + "…"},
	}
	for _, tc := range tests {
		if got := r.args(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("args(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// lockRun holds a workflow's or job's run lock as the process running it
// does (agent/workflow/lock.go: a flock on locks/ID.lock in the state
// directory), so status sees it as running.
func lockRun(t *testing.T, stateDir, id string) {
	t.Helper()
	dir := filepath.Join(stateDir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, id+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// statusProject is a repository with one empty commit and its opened
// project, for the status verb's tests (the user's configuration empty).
func statusProject(t *testing.T) (string, *workflow.Project) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "--allow-empty", "-m", "initial")
	p, err := workflow.OpenProject(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dir, p
}

func TestStatusVerbShowsToolActivity(t *testing.T) {
	ctx := context.Background()
	dir, p := statusProject(t)
	live, _, jobID := seedActivity(t, p.Store, time.Now())
	lockRun(t, p.Repo.StateDir(), live)
	lockRun(t, p.Repo.StateDir(), "job-"+jobID)
	p.Close()

	for _, tc := range []struct {
		args []string
		code int
		want []string // in stdout, or stderr when code != 0
		not  []string
	}{
		{[]string{"--calls", "-1"}, 2, []string{"--calls -1 is negative", "0 for none"}, nil},
		{[]string{"--calls", "many"}, 2, []string{`invalid value "many" for flag -calls`}, nil},
		{nil, 0, []string{"fix-login: running shell `[blocked] env={1 keys}` for 1", "job fix-add: running run_tests `package=./...` for "},
			[]string{leakedToken, "old-task:"}},
		{[]string{"--jobs"}, 0, []string{"job fix-add: running run_tests `package=./...` for "}, []string{"fix-login"}},
		{[]string{"--calls", "0"}, 0, []string{"fix-login"}, []string{"running shell"}},
		{[]string{"--json"}, 0, []string{`"toolActivity"`, `"pulseRecords"`, `"parentCallId": "call_2"`, `"status": "interrupted"`, `"status": "running"`},
			[]string{leakedToken, "hunter2"}},
		{[]string{"--json", "--calls", "0"}, 0, []string{`"pulseRecords"`}, []string{"toolActivity"}},
		{[]string{"--jobs", "--json", "--calls", "1"}, 0, []string{`"toolActivity"`, `"total": 2`, `"tool": "run_tests"`, `"branch"`}, []string{`"activity"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runMain(ctx, stdio{in: strings.NewReader(""), out: &out, err: &errb}, append([]string{"status", "--root", dir}, tc.args...))
			shown := out.String()
			if tc.code != 0 {
				shown = errb.String()
			}
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out.String(), errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(shown, w) {
					t.Errorf("output lacks %q:\n%s", w, shown)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out.String()+errb.String(), w) {
					t.Errorf("output has %q:\n%s%s", w, out.String(), errb.String())
				}
			}
		})
	}
}
