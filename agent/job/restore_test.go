package job

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools/team"
)

// noModel fails the test if the model is called: restoring runs nothing.
type noModel struct{ t *testing.T }

func (m noModel) Complete(context.Context, agent.Request, func(string)) (agent.Response, error) {
	m.t.Error("restore called the model")
	return agent.Response{}, errors.New("no model")
}

func (noModel) DefaultModelName() string { return "none" }

func newTestRunner(t *testing.T, ed editor.Client) (*Runner, store.Job) {
	t.Helper()
	dir := t.TempDir()
	testkit.Commit(t, dir)
	ctx := context.Background()
	repo, st := storetest.Open(t, dir)
	r, err := New(Config{Store: st, Repo: repo, Editor: ed, Model: noModel{t}})
	if err != nil {
		t.Fatal(err)
	}
	j, err := r.Start(ctx, Task{Text: "Fix it"})
	if err != nil {
		t.Fatal(err)
	}
	return r, j
}

// TestRestoreAnswersLostCallsWithoutRunningThem: a process died while the
// last assistant message's calls ran. Each call gets a result saying what
// is known (finished: its summary; started: it may have taken effect; not
// started: call it again), an interrupted request_human_review gets its
// escalation's answer; nothing is added twice.
func TestRestoreAnswersLostCallsWithoutRunningThem(t *testing.T) {
	ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionReject, Feedback: "not now"}}
	r, j := newTestRunner(t, ed)
	ctx := context.Background()
	calls := []agent.ToolCall{
		{ID: "a", Name: "get_repo_state", Args: json.RawMessage(`{}`)},
		{ID: "b", Name: "apply_patch", Args: json.RawMessage(`{}`)},
		{ID: "c", Name: "request_human_review", Args: json.RawMessage(`{}`)},
		{ID: "d", Name: "run_tests", Args: json.RawMessage(`{}`)},
	}
	for _, m := range []agent.Message{{Role: agent.RoleUser, Content: "Task: Fix it"}, {Role: agent.RoleAssistant, ToolCalls: calls}} {
		if err := r.save(ctx, j.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range calls[:3] {
		if err := r.store.StartJobToolCall(ctx, &store.JobToolCall{JobID: j.ID, CallID: c.ID, Name: c.Name}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.store.FinishJobToolCall(ctx, j.ID, "a", `{"branch":"","clean":true}`, run.OutcomeOK); err != nil {
		t.Fatal(err)
	}
	esc := store.JobEscalation{JobID: j.ID, Reason: "Which way?", Severity: "high"}
	if err := r.store.AddJobEscalation(ctx, &esc); err != nil {
		t.Fatal(err)
	}
	h := &handle{r: r, job: j, cancel: func(error) {}}
	history, err := r.restore(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 6 {
		t.Fatalf("restored %d messages, want 2 + 4 results: %+v", len(history), history)
	}
	want := map[string]string{
		"a": `its result was lost; it was not run again. What is known of its result: {\"branch\":\"\",\"clean\":true}`,
		"b": "interrupted while this call ran, so it may have taken effect",
		"c": `"humanResponse":{"approved":false,"decision":"rejected","feedback":"not now"}`,
		"d": "Not run: the job was interrupted before this call started",
	}
	for i, m := range history[2:] {
		if m.Role != agent.RoleTool || m.ToolCallID != calls[i].ID || !strings.Contains(m.Content, want[calls[i].ID]) {
			t.Errorf("result of %s = %+v, want it to contain %s", calls[i].Name, m, want[calls[i].ID])
		}
	}
	if len(ed.Asked()) != 1 {
		t.Errorf("the pending escalation was asked %d times, want 1", len(ed.Asked()))
	}
	again, err := r.restore(ctx, h)
	if err != nil || len(again) != len(history) {
		t.Errorf("a second restore gave %d messages (%v), want the same %d", len(again), err, len(history))
	}
	if len(ed.Asked()) != 1 {
		t.Errorf("the answered escalation was asked again")
	}
	if input := firstInput(j, again); input != "" {
		t.Errorf("after tool results the conversation continues by itself; input %q", input)
	}
}

// TestRestoreGivesLateAnswers: an escalation answered while the job
// waited (autarch.answerEscalation), whose call already has a result, is
// given to the agent as a user message, once.
func TestRestoreGivesLateAnswers(t *testing.T) {
	r, j := newTestRunner(t, &testkit.Editor{T: t})
	ctx := context.Background()
	esc := store.JobEscalation{JobID: j.ID, Reason: "Rename it?"}
	if err := r.store.AddJobEscalation(ctx, &esc); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AnswerEscalation(ctx, j.ID, esc.ID, true, "yes"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AnswerEscalation(ctx, j.ID, esc.ID, false, ""); err == nil {
		t.Error("an escalation was answered twice")
	}
	h := &handle{r: r, job: j, cancel: func(error) {}}
	history, err := r.restore(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1 || history[0].Role != agent.RoleUser || !strings.Contains(history[0].Content, "approved: yes") {
		t.Fatalf("history = %+v", history)
	}
	if again, _ := r.restore(ctx, h); len(again) != 1 {
		t.Errorf("the answer was given twice: %+v", again)
	}
}

// TestDismissedEscalationWaits: a prompt closed without an answer leaves
// the job Waiting and the run's context cancelled with ErrWaiting.
func TestDismissedEscalationWaits(t *testing.T) {
	r, j := newTestRunner(t, &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionDismissed}})
	ctx, cancel := context.WithCancelCause(context.Background())
	h := &handle{r: r, job: j, cancel: cancel}
	id, _, _, err := h.Escalate(ctx, team.Escalation{Reason: "Unsure"})
	if !errors.Is(err, ErrWaiting) || !errors.Is(context.Cause(ctx), ErrWaiting) || id == "" {
		t.Errorf("Escalate = %q, %v (cause %v), want ErrWaiting", id, err, context.Cause(ctx))
	}
	got, _ := r.store.Job(context.Background(), j.ID)
	if got.Status != store.JobWaiting {
		t.Errorf("job is %s, want Waiting", got.Status)
	}
}

// TestRecoverLeavesAStartingJobAlone: between Start and Run the job is
// Running and its run lock held, so no Recover (listing jobs, another
// process) takes it for a killed one; once released, it is recovered.
func TestRecoverLeavesAStartingJobAlone(t *testing.T) {
	r, j := newTestRunner(t, &testkit.Editor{T: t})
	ctx := context.Background()
	if _, err := r.Summaries(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.store.Job(ctx, j.ID); got.Status != store.JobRunning {
		t.Fatalf("a job between Start and Run was recovered: %s (%s)", got.Status, got.StatusReason)
	}
	r.Release(j.ID)
	if err := r.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if got, _ := r.store.Job(ctx, j.ID); got.Status != store.JobStopped || got.StatusReason != InterruptedReason {
		t.Errorf("a Running job nobody runs is %s (%s), want Stopped: %s", got.Status, got.StatusReason, InterruptedReason)
	}
	if _, err := r.Run(ctx, j.ID); err == nil || !strings.Contains(err.Error(), "resume it first") {
		t.Errorf("Run of a stopped job: %v", err)
	}
}
