package store

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/autarch-dev/autarch/agent/run"
	"strings"
	"testing"
)

func TestJobRecordsAndRefusals(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	for _, tc := range []struct {
		job  Job
		want string
	}{
		{Job{Task: " ", Mode: "mechanic", BaseCommit: "c"}, "the task is empty"},
		{Job{Task: "t", Mode: "wizard", BaseCommit: "c"}, `mode "wizard" is not accepted`},
		{Job{Task: "t", Mode: "genius"}, "base commit is required"},
		{Job{Task: "t", Mode: "genius", BaseCommit: "c", Status: "Sleeping"}, `invalid job status "Sleeping"`},
	} {
		if err := s.CreateJob(ctx, &tc.job); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CreateJob(%+v) = %v, want %q", tc.job, err, tc.want)
		}
	}
	j := Job{Task: "Fix Add", Mode: "mechanic", BaseRef: "main", BaseCommit: "abc", TokenBudget: 100, IterationLimit: 3}
	if err := s.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	if len(j.ID) != 16 || j.Status != JobRunning {
		t.Errorf("created job %+v", j)
	}
	for _, err := range []error{
		s.AddJobUsage(ctx, j.ID, 10, 5, 0.01),
		s.AddJobUsage(ctx, j.ID, 1, 1, 0),
		s.SetJobBranch(ctx, j.ID, "ai/x/fix"),
		s.SetJobStatus(ctx, j.ID, JobDone, "committed"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Job(ctx, j.ID)
	if err != nil || got.Iterations != 2 || got.Tokens() != 17 || got.Branch != "ai/x/fix" || got.Status != JobDone || got.EndedAt.IsZero() {
		t.Errorf("job = %+v, %v", got, err)
	}
	if err := s.AddJobUsage(ctx, j.ID, -1, 0, 0); err == nil {
		t.Error("negative usage accepted")
	}
	if err := s.SetJobStatus(ctx, "nope", JobStopped, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("status of a missing job: %v", err)
	}
	if err := s.AddJobMessage(ctx, &JobMessage{JobID: j.ID, Role: "system"}); err == nil {
		t.Error("a system message was stored")
	}
	if err := s.AddJobMessage(ctx, &JobMessage{JobID: j.ID, Role: "tool", Data: json.RawMessage(`{`)}); err == nil {
		t.Error("invalid message data stored")
	}
	if err := s.AddJobCheck(ctx, &JobCheck{JobID: j.ID, Kind: "build"}); err == nil {
		t.Error("a check of kind build was stored")
	}
	if err := s.AddJobAnalysis(ctx, &JobAnalysis{JobID: j.ID, Findings: "  "}); err == nil {
		t.Error("an empty analysis was stored")
	}
	if err := s.AddJobPlan(ctx, &JobPlan{JobID: j.ID, Steps: json.RawMessage(`[`)}); err == nil {
		t.Error("invalid plan steps stored")
	}
	if err := s.AddJobCommit(ctx, &JobCommit{JobID: j.ID, Message: "m"}); err == nil {
		t.Error("a commit without hash and branch was stored")
	}
	if err := s.AddJobEscalation(ctx, &JobEscalation{JobID: j.ID, Reason: "r", Context: json.RawMessage(`{`)}); err == nil {
		t.Error("invalid escalation context stored")
	}
	e := JobEscalation{JobID: j.ID, Reason: "Which?", Severity: "high", Context: json.RawMessage(`{"f":1}`)}
	if err := s.AddJobEscalation(ctx, &e); err != nil {
		t.Fatal(err)
	}
	if err := s.DeliverJobEscalation(ctx, e.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a pending escalation was delivered: %v", err)
	}
	if err := s.AnswerJobEscalation(ctx, e.ID, true, "yes"); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerJobEscalation(ctx, e.ID, false, "no"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an escalation was answered twice: %v", err)
	}
	if err := s.DeliverJobEscalation(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	got2, err := s.JobEscalation(ctx, e.ID)
	if err != nil || got2.Status != EscalationAnswered || !got2.Approved || got2.Feedback != "yes" || !got2.Delivered || string(got2.Context) != `{"f":1}` {
		t.Errorf("escalation = %+v, %v", got2, err)
	}
	if err := s.StartJobToolCall(ctx, &JobToolCall{JobID: j.ID, CallID: "c1", Name: "apply_patch"}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishJobToolCall(ctx, j.ID, "c1", "applied", run.OutcomeOK); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishJobToolCall(ctx, j.ID, "c1", "again", run.OutcomeOK); !errors.Is(err, ErrNotFound) {
		t.Errorf("a finished call was finished again: %v", err)
	}
	calls, err := s.JobToolCalls(ctx, j.ID)
	if err != nil || len(calls) != 1 || calls[0].Summary != "applied" || calls[0].EndedAt.IsZero() {
		t.Errorf("calls = %+v, %v", calls, err)
	}
}
