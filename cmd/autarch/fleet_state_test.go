package main

import (
	"context"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/fleet"
)

// A saved state is another machine's word: a takeover uses it only when
// it holds the fleet run and nothing else, with the run's name, base and
// branch, and names that are valid as any agent input; a state that says
// the run ended ends it.
func TestFleetStateIsCheckedBeforeItIsResumed(t *testing.T) {
	ctx := context.Background()
	const base = "0123456789012345678901234567890123456789"
	wfRun := fleet.Run{Spec: fleet.Spec{Kind: fleet.Workflow, Name: "two", BaseCommit: base}, Branch: "autarch/two"}
	jobRun := fleet.Run{Spec: fleet.Spec{Kind: fleet.Job, BaseCommit: base}, Branch: "ai/0123abcd/add-inc"}
	workflow := func(name, baseCommit string, status store.WorkflowStatus) func(*store.Store) error {
		return func(st *store.Store) error {
			wf := store.Workflow{Name: name, Task: "t", Stage: "pulsing", BaseCommit: baseCommit}
			if err := st.CreateWorkflow(ctx, &wf); err != nil {
				return err
			}
			if status != "" {
				return st.SetWorkflowStatus(ctx, wf.ID, status, "done")
			}
			return nil
		}
	}
	job := func(id, branch string, status store.JobStatus) func(*store.Store) error {
		return func(st *store.Store) error {
			j := store.Job{ID: id, Name: "j", Task: "t", Mode: "genius", Status: status, BaseRef: "main", BaseCommit: base}
			if err := st.CreateJob(ctx, &j); err != nil {
				return err
			}
			return st.SetJobBranch(ctx, id, branch)
		}
	}
	for _, tc := range []struct {
		name  string
		run   fleet.Run
		rows  []func(*store.Store) error
		want  takeover
		error string
	}{
		{"workflow", wfRun, []func(*store.Store) error{workflow("two", base, "")}, takeover{ref: "two", branch: "autarch/two"}, ""},
		{"workflow completed", wfRun, []func(*store.Store) error{workflow("two", base, store.WorkflowCompleted)},
			takeover{ref: "two", branch: "autarch/two", ended: fleet.Completed, why: "completed on autarch/two (its worker was lost before it recorded so)"}, ""},
		{"another workflow", wfRun, []func(*store.Store) error{workflow("other", base, "")}, takeover{}, "the state's workflow is other"},
		{"another base", wfRun, []func(*store.Store) error{workflow("two", strings.Repeat("f", 40), "")}, takeover{}, "starts from ffffffffffff"},
		{"two runs", wfRun, []func(*store.Store) error{workflow("two", base, ""), workflow("three", base, "")}, takeover{}, "holds 2 workflows"},
		{"a job for a workflow", wfRun, []func(*store.Store) error{job("0123abcd01234567", "ai/0123abcd/add-inc", store.JobRunning)}, takeover{}, "holds no workflow"},
		{"job", jobRun, []func(*store.Store) error{job("0123abcd01234567", "ai/0123abcd/add-inc", store.JobRunning)},
			takeover{ref: "0123abcd01234567", branch: "ai/0123abcd/add-inc"}, ""},
		{"job branch of another job", jobRun, []func(*store.Store) error{job("0123abcd01234567", "ai/ffffffff/add-inc", store.JobRunning)}, takeover{}, "is not one of its job"},
		{"job branch climbing out", jobRun, []func(*store.Store) error{job("0123abcd01234567", "ai/0123abcd/../../main", store.JobRunning)}, takeover{}, "is not one of its job"},
		{"job id", jobRun, []func(*store.Store) error{job("../x", "", store.JobRunning)}, takeover{}, "is not one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := tempStore(t, store.Options{})
			for _, add := range tc.rows {
				if err := add(st); err != nil {
					t.Fatal(err)
				}
			}
			got, err := stateRun(ctx, st, tc.run)
			if tc.error != "" {
				if err == nil || !strings.Contains(err.Error(), tc.error) {
					t.Fatalf("stateRun = %+v, %v; want an error with %q", got, err, tc.error)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("stateRun = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// The commits a state knows are its landed checkpoints: a remote branch
// ending elsewhere (pushed after the state was saved) is not resumed.
func TestFleetStateKnowsItsCheckpoints(t *testing.T) {
	ctx := context.Background()
	st := tempStore(t, store.Options{})
	wf := store.Workflow{Name: "two", Task: "t", Stage: "pulsing", BaseCommit: "b0"}
	if err := st.CreateWorkflow(ctx, &wf); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ id, commit string }{{"pulse-1", "c1"}, {"pulse-2", ""}} {
		sp := store.Pulse{WorkflowID: wf.ID, PlannedID: p.id, Description: p.id}
		if err := st.AddPulse(ctx, &sp); err != nil {
			t.Fatal(err)
		}
		if err := st.StartPulse(ctx, sp.ID, store.PulseStart{}); err != nil {
			t.Fatal(err)
		}
		if p.commit != "" {
			if err := st.FinishPulse(ctx, sp.ID, store.PulseEnd{Status: store.PulseSucceeded, CheckpointCommit: p.commit}); err != nil {
				t.Fatal(err)
			}
		}
	}
	known, err := stateCommits(ctx, st, "two", fleet.Workflow)
	if err != nil || len(known) != 1 || !known["c1"] {
		t.Fatalf("stateCommits = %v, %v; want c1 alone", known, err)
	}
}
