package store_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/v7-runs.golden.json from the fixture")

// fixtureStages are the stages a workflow's conversation is kept under.
var fixtureStages = []string{"scoping", "research", "plan", "preflight", "pulsing", "review"}

// TestUpgradeFromV7Store opens a store written by the release before the
// run kernel (testdata/v7-runs.db: two workflows of real scenario runs,
// one done and one stopped while pulsing, a job killed mid-run and a done
// job with an answered escalation, made by the scenario tests at schema
// version 7), upgrades it in place, lists the runs and reads back
// everything a resume reads: nothing is lost (testdata/v7-runs.golden.json
// was written by the code that wrote the store). Then the stopped job and
// workflow are resumed: their conversations go on where they stopped.
func TestUpgradeFromV7Store(t *testing.T) {
	ctx := context.Background()
	st := openUpgraded(t, "testdata/v7-runs.db")
	runs, err := st.Runs(ctx)
	if err != nil {
		t.Fatalf("list the runs: %v", err)
	}
	kinds := map[string]string{}
	for _, r := range runs {
		kinds[r.ID] = r.Kind
	}
	wantKinds := map[string]string{"wf-9165650d312f8d0f": "workflow", "wf-433cdfd9172c7d0e": "workflow", "9f7809f84d7296bf": "job", "9f833bfdd2b51d78": "job"}
	if !maps.Equal(kinds, wantKinds) {
		t.Errorf("runs after the upgrade: %v, want %v", kinds, wantKinds)
	}
	got := dumpRuns(t, st)
	if *updateGolden {
		if err := os.WriteFile("testdata/v7-runs.golden.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/v7-runs.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("the upgraded store reads differently from the store the old code wrote:\n got: %s\nwant: %s", got, want)
	}

	// Resume: the interrupted job and the stopped workflow go on.
	const jobID, wfID = "9f7809f84d7296bf", "wf-433cdfd9172c7d0e"
	if err := st.SetJobStatus(ctx, jobID, store.JobRunning, "resumed"); err != nil {
		t.Fatalf("resume the job: %v", err)
	}
	before, err := st.JobMessages(ctx, jobID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddJobMessage(ctx, &store.JobMessage{JobID: jobID, Role: "user", Content: "go on"}); err != nil {
		t.Fatalf("add a job message after the upgrade: %v", err)
	}
	after, err := st.JobMessages(ctx, jobID)
	if err != nil || len(after) != len(before)+1 || after[len(after)-1].Content != "go on" || after[len(after)-1].ID <= before[len(before)-1].ID {
		t.Fatalf("the resumed job's conversation does not go on: %d messages before, %d after (%v)", len(before), len(after), err)
	}
	if err := st.StartJobToolCall(ctx, &store.JobToolCall{JobID: jobID, CallID: "call-after", Name: "run_tests"}); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishJobToolCall(ctx, jobID, "call-after", "pass", run.OutcomeOK); err != nil {
		t.Fatal(err)
	}
	if err := st.SetWorkflowStatus(ctx, wfID, store.WorkflowActive, ""); err != nil {
		t.Fatalf("resume the workflow: %v", err)
	}
	pulses, err := st.WorkflowPulses(ctx, wfID)
	if err != nil || len(pulses) != 1 {
		t.Fatalf("the stopped workflow's pulses: %v (%v)", pulses, err)
	}
	m := store.Message{WorkflowID: wfID, Stage: "pulsing", PulseID: pulses[0].ID, Role: "user", Content: "resume"}
	if err := st.AddMessage(ctx, &m); err != nil {
		t.Fatalf("add a pulse message after the upgrade: %v", err)
	}
	msgs, err := st.Messages(ctx, wfID, "pulsing", pulses[0].ID)
	if err != nil || msgs[len(msgs)-1].ID != m.ID {
		t.Fatalf("the resumed pulse's conversation does not go on: %v (%v)", msgs, err)
	}
}

// dumpRuns is everything a listing and a resume read from the store, as
// JSON (times left out: they are as stored).
func dumpRuns(t *testing.T, st *store.Store) []byte {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]any{}
	wfs, err := st.Workflows(ctx)
	must(err)
	for _, w := range wfs {
		d := map[string]any{"stage": w.Stage, "status": w.Status, "reason": w.StatusReason, "branch": w.WorkflowBranch}
		pulses, err := st.WorkflowPulses(ctx, w.ID)
		must(err)
		pulseIDs := []string{""}
		for _, p := range pulses {
			pulseIDs = append(pulseIDs, p.ID)
			d["pulse "+p.ID] = fmt.Sprintf("%s initiating=%d", p.Status, p.InitiatingMessageID)
		}
		for _, stage := range fixtureStages {
			for _, pid := range pulseIDs {
				msgs, err := st.Messages(ctx, w.ID, stage, pid)
				must(err)
				for i := range msgs {
					msgs[i].CreatedAt = msgs[i].CreatedAt.UTC()
				}
				if len(msgs) > 0 {
					d["messages "+stage+" "+pid] = msgs
				}
			}
		}
		for _, pid := range pulseIDs {
			calls, err := st.ToolCalls(ctx, w.ID, pid)
			must(err)
			for i := range calls {
				calls[i].StartedAt, calls[i].EndedAt = calls[i].StartedAt.UTC(), calls[i].EndedAt.UTC()
				calls[i].Outcome = checkedOutcome(t, calls[i].CallID, calls[i].Outcome, calls[i].Failed, !calls[i].EndedAt.IsZero())
			}
			if len(calls) > 0 {
				d["tool calls "+pid] = calls
			}
		}
		u, err := st.WorkflowUsage(ctx, w.ID)
		must(err)
		d["usage"] = u
		open, err := st.OpenPending(ctx, w.ID)
		must(err)
		d["open pending"] = len(open)
		out["workflow "+w.ID] = d
	}
	jobs, err := st.Jobs(ctx)
	must(err)
	for _, j := range jobs {
		d := map[string]any{"status": j.Status, "reason": j.StatusReason, "branch": j.Branch, "tokens": j.Tokens(), "iterations": j.Iterations, "cost": j.Cost}
		msgs, err := st.JobMessages(ctx, j.ID)
		must(err)
		for i := range msgs {
			// A job message's id is storage detail (only the order counts).
			msgs[i].ID, msgs[i].CreatedAt = 0, msgs[i].CreatedAt.UTC()
		}
		d["messages"] = msgs
		calls, err := st.JobToolCalls(ctx, j.ID)
		must(err)
		for i := range calls {
			calls[i].StartedAt, calls[i].EndedAt = calls[i].StartedAt.UTC(), calls[i].EndedAt.UTC()
			calls[i].Outcome = checkedOutcome(t, calls[i].CallID, calls[i].Outcome, calls[i].Failed, !calls[i].EndedAt.IsZero())
		}
		d["tool calls"] = calls
		esc, err := st.JobEscalations(ctx, j.ID)
		must(err)
		for i := range esc {
			esc[i].CreatedAt, esc[i].ResolvedAt = esc[i].CreatedAt.UTC(), esc[i].ResolvedAt.UTC()
		}
		d["escalations"] = esc
		counts, err := st.JobToolCallCounts(ctx, j.ID)
		must(err)
		d["call counts"] = counts
		out["job "+j.ID] = d
	}
	b, err := json.MarshalIndent(out, "", " ")
	must(err)
	return append(b, '\n')
}

// openUpgraded opens a copy of a store fixture an earlier release wrote,
// upgrading it in place to this build's schema.
func openUpgraded(t *testing.T, fixture string) *store.Store {
	t.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), store.FileName)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatalf("open the store %s: %v", fixture, err)
	}
	t.Cleanup(func() { st.Close() })
	if v, err := st.SchemaVersion(context.Background()); err != nil || v != store.LatestVersion() {
		t.Fatalf("schema version %d (%v), want %d", v, err, store.LatestVersion())
	}
	return st
}

// checkedOutcome checks a stored call's outcome against its failed flag
// (an ended call has one, a running call none) and leaves it out of the
// dump, which older releases wrote without it.
func checkedOutcome(t *testing.T, callID string, o run.Outcome, failed, ended bool) run.Outcome {
	t.Helper()
	switch {
	case !ended && o != "":
		t.Errorf("call %s has not ended but has outcome %q", callID, o)
	case ended && (o == "" || o.Failed() != failed):
		t.Errorf("call %s ended with outcome %q, failed %v", callID, o, failed)
	}
	return ""
}
