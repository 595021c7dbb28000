package workflow_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

func loadHarness(t *testing.T, path string, cfg scenarioConfig) *harness {
	t.Helper()
	return newHarness(t, testkit.LoadScenario(t, path), cfg)
}

func TestDiscussKeepsTheConversation(t *testing.T) {
	h := loadHarness(t, "testdata/other/discuss.txt", scenarioConfig{})
	ctx := context.Background()
	if _, err := h.engine.Discuss(ctx, "  "); err == nil {
		t.Error("an empty message was accepted")
	}
	reply, err := h.engine.Discuss(ctx, "What does main do?")
	if err != nil || !strings.Contains(reply, "prints **hi**") {
		t.Fatalf("first reply = %q, %v", reply, err)
	}
	reply, err = h.engine.Discuss(ctx, "And then?")
	if err != nil || reply != "Then it exits." {
		t.Fatalf("second reply = %q, %v", reply, err)
	}
	var roles []string
	h.mu.Lock()
	for _, ev := range h.events {
		if ev.Kind == "message" && ev.Stage == "discussion" {
			roles = append(roles, ev.Status)
		}
	}
	h.mu.Unlock()
	if strings.Join(roles, ",") != "user,assistant,user,assistant" {
		t.Errorf("discussion events = %v", roles)
	}
	if n := h.model.Remaining(); n != 0 {
		t.Errorf("%d steps unused", n)
	}
}

func TestAnswerPendingThenResume(t *testing.T) {
	h := loadHarness(t, "testdata/other/answer-pending.txt", scenarioConfig{Approvals: []string{"approve"}, Answers: [][][]string{{nil}}})
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: "Add Half", Name: "half", Path: workflow.PathQuick})
	if err != nil {
		t.Fatal(err)
	}
	wf, err = h.engine.Run(ctx, wf.ID)
	if !errors.Is(err, workflow.ErrWaiting) || wf.Status != store.WorkflowAwaitingUser {
		t.Fatalf("after a dismissed question: %s, %v", wf.Status, err)
	}
	open, err := h.store.OpenPending(ctx, wf.ID)
	if err != nil || len(open) != 1 || open[0].Kind != "questions" {
		t.Fatalf("pending = %+v, %v", open, err)
	}
	bad := []struct {
		name    string
		wf, id  string
		answers []editor.Answer
		want    string
	}{
		{"unknown workflow", "nope", open[0].ID, []editor.Answer{{Values: []string{"down"}}}, "no workflow"},
		{"unknown item", wf.ID, "pending-x", []editor.Answer{{Values: []string{"down"}}}, "pending item"},
		{"too many answers", wf.ID, open[0].ID, []editor.Answer{{Values: []string{"down"}}, {Values: []string{"x"}}}, "2 answers for 1 questions"},
		{"empty answer", wf.ID, open[0].ID, []editor.Answer{{}}, "has no answer"},
	}
	for _, b := range bad {
		if err := h.engine.AnswerPending(ctx, b.wf, b.id, b.answers); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want %q", b.name, err, b.want)
		}
	}
	if err := h.engine.AnswerPending(ctx, wf.ID, open[0].ID, []editor.Answer{{Values: []string{"to even"}}}); err != nil {
		t.Fatal(err)
	}
	if err := h.engine.AnswerPending(ctx, wf.ID, open[0].ID, []editor.Answer{{Values: []string{"down"}}}); err == nil {
		t.Error("an answered question was answered again")
	}
	wf, err = h.engine.Resume(ctx, wf.ID)
	if err != nil || wf.Stage != "done" || wf.Status != store.WorkflowCompleted {
		t.Fatalf("after the answer and resume: %s %s, %v", wf.Stage, wf.Status, err)
	}
	if errs := h.model.Errors(); len(errs) > 0 {
		t.Errorf("model script mismatches: %v", errs)
	}
}

func TestDecidePendingCard(t *testing.T) {
	h := loadHarness(t, "testdata/other/decide-pending.txt", scenarioConfig{Approvals: []string{"dismiss", "dismiss"}})
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: "Add Half", Name: "half"})
	if err != nil {
		t.Fatal(err)
	}
	waiting := func() store.Pending {
		t.Helper()
		wf, err = h.engine.Run(ctx, wf.ID)
		if !errors.Is(err, workflow.ErrWaiting) {
			t.Fatalf("run: %v, want ErrWaiting", err)
		}
		open, err := h.store.OpenPending(ctx, wf.ID)
		if err != nil || len(open) != 1 || open[0].Kind != "scope" {
			t.Fatalf("pending = %+v, %v", open, err)
		}
		return open[0]
	}
	p := waiting()
	for _, bad := range []struct {
		v    editor.Verdict
		want string
	}{
		{editor.Verdict{Decision: "maybe"}, "not accepted"},
		{editor.Verdict{Decision: editor.DecisionDismissed}, "not accepted"},
	} {
		if err := h.engine.DecidePending(ctx, wf.ID, p.ID, bad.v); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("decision %q: %v", bad.v.Decision, err)
		}
	}
	if err := h.engine.DecidePending(ctx, wf.ID, p.ID, editor.Verdict{Decision: editor.DecisionReject, Feedback: "Say how it rounds."}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.engine.Resume(ctx, wf.ID); !errors.Is(err, workflow.ErrWaiting) {
		t.Fatalf("resume after the rejection: %v (the revised card should wait again)", err)
	}
	open, _ := h.store.OpenPending(ctx, wf.ID)
	if len(open) != 1 {
		t.Fatalf("pending after the revision = %+v", open)
	}
	if err := h.engine.DecidePending(ctx, wf.ID, open[0].ID, editor.Verdict{Decision: editor.DecisionApprove}); err != nil {
		t.Fatal(err)
	}
	if cur, _ := h.store.Workflow(ctx, wf.ID); cur.Stage != "preflight" || cur.Path != "quick" {
		t.Errorf("after approval: stage %s, path %s", cur.Stage, cur.Path)
	}
	wf, err = h.engine.Resume(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume after the approval: %s, %v", wf.Status, err)
	}
	if errs := h.model.Errors(); len(errs) > 0 {
		t.Errorf("model script mismatches: %v", errs)
	}
}

// TestDiscussionIsNotAWorkflowChannel: take_note in the Discussion answers
// the spec's "Notes are only available in workflow channels" (the scripted
// model checks the tool result it receives).
func TestDiscussionIsNotAWorkflowChannel(t *testing.T) {
	h := loadHarness(t, "testdata/other/discuss-note.txt", scenarioConfig{})
	reply, err := h.engine.Discuss(context.Background(), "Remember this: main prints hi")
	if err != nil || !strings.Contains(reply, "Noted here instead") {
		t.Fatalf("reply = %q, %v", reply, err)
	}
	if errs := h.model.Errors(); len(errs) > 0 {
		t.Fatalf("the model saw an unexpected request: %v", errs)
	}
}
