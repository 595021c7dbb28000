package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A snapshot is this build's store, or it is refused: an object the
// schema does not have (a trigger another machine slipped in), a schema
// version this build does not know, a file that is no store.
func TestCheckSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	newWorkflow(t, s, "snap")
	dir := t.TempDir()
	snap := func(name string, tamper string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := s.Snapshot(ctx, p); err != nil {
			t.Fatal(err)
		}
		if tamper != "" {
			db, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, tamper); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	for _, tc := range []struct {
		name, tamper, err string
	}{
		{"ours", "", ""},
		{"trigger", `CREATE TRIGGER evil AFTER UPDATE ON workflows BEGIN DELETE FROM workflows; END`, "schema is not this build's"},
		{"table", `CREATE TABLE extra (x)`, "schema is not this build's"},
		{"newer", `INSERT INTO schema_version (version, name, applied_at) VALUES (9999, 'future', 0)`, "not one this build knows"},
		{"no store", `DROP TABLE schema_version`, "not a workflow store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSnapshot(ctx, snap(tc.name+".db", tc.tamper))
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("CheckSnapshot = %v, want %q", err, tc.err)
			}
		})
	}
}

// A takeover keeps a landed pulse, rewinds the interrupted one and the
// one whose checkpoint never reached the branch (their conversations set
// aside), and puts every worktree on this machine.
func TestTakeoverRewindsWhatDidNotLand(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "two")
	w.WorktreePath = "/elsewhere/worktrees/two"
	if err := s.UpdateWorkflow(ctx, &w); err != nil {
		t.Fatal(err)
	}
	pulse := func(id, status, commit string) Pulse {
		t.Helper()
		p := Pulse{WorkflowID: w.ID, PlannedID: id, Description: id}
		if err := s.AddPulse(ctx, &p); err != nil {
			t.Fatal(err)
		}
		if err := s.StartPulse(ctx, p.ID, PulseStart{PulseBranch: "autarch-pulse/two/" + id, WorktreePath: "/elsewhere/worktrees/two"}); err != nil {
			t.Fatal(err)
		}
		if err := s.AddMessage(ctx, &Message{WorkflowID: w.ID, Stage: "pulsing", PulseID: p.ID, Role: "user", Content: "do " + id}); err != nil {
			t.Fatal(err)
		}
		if status != string(PulseRunning) {
			if err := s.FinishPulse(ctx, p.ID, PulseEnd{Status: PulseStatus(status), CheckpointCommit: commit}); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	landed := pulse("pulse-1", "Succeeded", "c1")
	lost := pulse("pulse-2", "Succeeded", "c2")
	running := pulse("pulse-3", "Running", "")
	j := Job{ID: "0123456789abcdef", Name: "job", Task: "t", Mode: "genius", Status: JobRunning, BaseRef: "main", BaseCommit: "b0", WorktreePath: "/elsewhere/job-01234567"}
	if err := s.CreateJob(ctx, &j); err != nil {
		t.Fatal(err)
	}
	rewound, err := s.Takeover(ctx, Takeover{
		WorkflowTree: func(name string) string { return "/here/worktrees/" + name },
		JobTree:      func(id string) string { return "/here/job-" + id[:8] },
		Landed:       func(c string) bool { return c == "c1" },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rewound, []string{"pulse-2", "pulse-3"}) {
		t.Errorf("rewound %v, want pulse-2 and pulse-3", rewound)
	}
	for _, tc := range []struct {
		p      Pulse
		status PulseStatus
		tree   string
		msgs   int
	}{{landed, PulseSucceeded, "/here/worktrees/two", 1}, {lost, PulseProposed, "", 0}, {running, PulseProposed, "", 0}} {
		got, err := s.Pulse(ctx, tc.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := s.Messages(ctx, w.ID, "pulsing", tc.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != tc.status || got.WorktreePath != tc.tree || len(msgs) != tc.msgs {
			t.Errorf("%s: %s in %q with %d messages, want %s in %q with %d", got.PlannedID, got.Status, got.WorktreePath, len(msgs), tc.status, tc.tree, tc.msgs)
		}
	}
	if got, _ := s.Workflow(ctx, w.ID); got.WorktreePath != "/here/worktrees/two" {
		t.Errorf("the workflow's worktree is %q", got.WorktreePath)
	}
	if got, _ := s.Job(ctx, j.ID); got.WorktreePath != "/here/job-01234567" {
		t.Errorf("the job's worktree is %q", got.WorktreePath)
	}
}
