package main

import (
	"context"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// TestStatusReadsOutcomeTyped: status shows a call as the store recorded
// its outcome, not as its result's text reads: a refusal whose text says
// nothing of a refusal is refused, a failure whose output quotes a
// guardrail's words is an error.
func TestStatusReadsOutcomeTyped(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t, store.Options{Now: func() time.Time { return statusNow }})
	j := store.Job{ID: "job-outcome", Name: "outcomes", Task: "t", Mode: "mechanic", BaseRef: "main", BaseCommit: "abc"}
	if err := st.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		id, summary string
		outcome     kernel.Outcome
		want        string
	}{
		{"quiet-refusal", `{"success":false,"error":"not now"}`, kernel.OutcomeRefused, "refused"},
		{"quoted-guardrail", `{"exit_code":1,"stdout":"docs.md: Guardrail: command blocked"}`, kernel.OutcomeFailed, "error"},
		{"fine", "ok", kernel.OutcomeOK, "ok"},
	}
	for _, c := range calls {
		if err := st.StartJobToolCall(ctx, &store.JobToolCall{JobID: j.ID, CallID: c.id, Name: "shell"}); err != nil {
			t.Fatal(err)
		}
		if err := st.FinishJobToolCall(ctx, j.ID, c.id, c.summary, c.outcome); err != nil {
			t.Fatal(err)
		}
	}
	act, err := newActivityLister(len(calls), statusNow).job(ctx, st, j.ID, string(store.JobStopped))
	if err != nil {
		t.Fatal(err)
	}
	if len(act.Calls) != len(calls) {
		t.Fatalf("%d calls listed, want %d", len(act.Calls), len(calls))
	}
	for i, c := range calls {
		if got := act.Calls[i].Status; got != c.want {
			t.Errorf("call %s: status %q, want %q", c.id, got, c.want)
		}
	}
}
