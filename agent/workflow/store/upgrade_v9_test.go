package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

// TestUpgradeFromV9Store opens a store written by the release before tool
// calls kept their outcome (testdata/v9-runs.db: the v7 fixture upgraded
// by that release, then given calls of every ending — ok, failed, refused
// by a guardrail and by the secret gate, still running — for a workflow
// and a job, and testdata/v9-runs.golden.json dumped by it). It upgrades
// in place, reads back the same, gives each ended call its outcome once
// and records new outcomes typed.
func TestUpgradeFromV9Store(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	copyFile(t, "testdata/v9-runs.db", path)
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatalf("open the v9 store: %v", err)
	}
	defer st.Close()
	if v, err := st.SchemaVersion(ctx); err != nil || v != store.LatestVersion() {
		t.Fatalf("schema version %d (%v), want %d", v, err, store.LatestVersion())
	}
	want, err := os.ReadFile("testdata/v9-runs.golden.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := dumpRuns(t, st); string(got) != string(want) {
		t.Errorf("the upgraded store reads differently from the store the old code wrote:\n got: %s\nwant: %s", got, want)
	}

	const jobID, wfID = "9f833bfdd2b51d78", "wf-9165650d312f8d0f"
	wantOutcome := map[string]run.Outcome{"v9-ok": run.OutcomeOK, "v9-failed": run.OutcomeFailed, "v9-guardrail": run.OutcomeRefused,
		"v9-secret": run.OutcomeRefused, "v9-running": ""}
	calls, err := st.RecentToolCalls(ctx, wfID, len(wantOutcome))
	if err != nil {
		t.Fatal(err)
	}
	jobCalls, err := st.RecentJobToolCalls(ctx, jobID, len(wantOutcome))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]run.Outcome{}
	for _, c := range calls {
		got["workflow "+c.CallID] = c.Outcome
	}
	for _, c := range jobCalls {
		got["job "+c.CallID] = c.Outcome
	}
	for id, o := range wantOutcome {
		for _, kind := range []string{"workflow ", "job "} {
			if g, ok := got[kind+id]; !ok || g != o {
				t.Errorf("%scall %s: outcome %q (listed %v), want %q", kind, id, g, ok, o)
			}
		}
	}

	// New calls record the outcome they are given, whatever their text.
	if err := st.FinishJobToolCall(ctx, jobID, "v9-running", `{"success":false,"error":"no"}`, run.OutcomeRefused); err != nil {
		t.Fatal(err)
	}
	tc := store.ToolCall{WorkflowID: wfID, Stage: "review", CallID: "v10", Name: "shell"}
	if err := st.AddToolCall(ctx, &tc); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishToolCall(ctx, tc.ID, "exit 0", run.OutcomeRefused); err != nil {
		t.Fatal(err)
	}
	if err := st.FinishToolCall(ctx, tc.ID, "exit 0", "maybe"); err == nil {
		t.Error("an outcome that is not ok, failed or refused was recorded")
	}
	last, err := st.RecentToolCalls(ctx, wfID, 1)
	if err != nil || len(last) != 1 || last[0].Outcome != run.OutcomeRefused || !last[0].Failed {
		t.Errorf("the new workflow call reads %+v (%v), want refused and failed", last, err)
	}
	lastJob, err := st.RecentJobToolCalls(ctx, jobID, 1)
	if err != nil || len(lastJob) != 1 || lastJob[0].Outcome != run.OutcomeRefused || !lastJob[0].Failed {
		t.Errorf("the new job call reads %+v (%v), want refused and failed", lastJob, err)
	}
}
