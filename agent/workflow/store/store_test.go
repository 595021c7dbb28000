package store

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/autarch-dev/autarch/agent/run"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var fixed = time.Date(2026, 11, 22, 18, 0, 0, 123456789, time.UTC)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state", FileName), Options{Now: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newWorkflow(t *testing.T, s *Store, name string) Workflow {
	t.Helper()
	w := Workflow{Name: name, Task: "add a feature", Stage: "discussion"}
	if err := s.CreateWorkflow(context.Background(), &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// openAt opens the store at path, closed when the test ends.
func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// addCase is a record to add and the error adding it must give ("": none).
type addCase[T any] struct {
	v    T
	want string
}

// addEach adds each case's record with add: one with a want error must be
// refused with that error (its text, or containing it when contains), the
// others stored. It returns the stored records as add left them.
func addEach[T any](t *testing.T, what string, contains bool, add func(*T) error, cases []addCase[T]) []T {
	t.Helper()
	var stored []T
	for _, tt := range cases {
		v := tt.v
		err := add(&v)
		if tt.want != "" {
			if err == nil || !contains && err.Error() != tt.want || contains && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s %+v: %v, want %q", what, tt.v, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		stored = append(stored, v)
	}
	return stored
}

func TestOpenMigratesFromEmptyAndReopens(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != LatestVersion() || v < 2 {
		t.Fatalf("schema version %d, %v; want %d", v, err, LatestVersion())
	}
	var mode string
	var fk, busy int
	s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode)
	s.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk)
	s.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busy)
	if mode != "wal" || fk != 1 || busy != int(busyTimeout.Milliseconds()) {
		t.Fatalf("journal_mode=%s foreign_keys=%d busy_timeout=%d", mode, fk, busy)
	}
	w := Workflow{Name: "kept", Stage: "scoping"}
	if err := s.CreateWorkflow(ctx, &w); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2 := openAt(t, path)
	got, err := s2.Workflow(ctx, w.ID)
	if err != nil || got.Name != "kept" {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	var n int
	s2.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_version`).Scan(&n)
	if n != LatestVersion() {
		t.Fatalf("schema_version has %d rows after reopen, want %d (no re-application)", n, LatestVersion())
	}
}

// TestMigrationUpgradesOldDatabase: a database at version 1 with data is
// upgraded in place.
func TestMigrationUpgradesOldDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	db, _, err := openDB(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, db, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO workflows (id, name, stage, status, created_at, updated_at) VALUES ('wf-1', 'old', 'plan', 'Active', 1, 1)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	up := openAt(t, path)
	if v, _ := up.SchemaVersion(ctx); v != LatestVersion() {
		t.Fatalf("version %d after upgrade", v)
	}
	if w, err := up.Workflow(ctx, "wf-1"); err != nil || w.Stage != "plan" {
		t.Fatalf("old data after upgrade: %+v, %v", w, err)
	}
	var idx int
	up.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type='index' AND name='pulses_workflow'`).Scan(&idx)
	if idx != 1 {
		t.Fatal("migration 2's index missing")
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), FileName)
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.db.ExecContext(ctx, `INSERT INTO schema_version VALUES (999, '0999_future.sql', 0)`)
	s.Close()
	if _, err := Open(ctx, path, Options{}); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

func TestWorkflowRecords(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := Workflow{Name: "feature-x", Task: "do it", Stage: "scoping", Path: "full", BaseBranch: "main", BaseCommit: "abc",
		WorkflowBranch: "autarch/feature-x", WorktreePath: "/w", Status: WorkflowAwaitingUser, StatusReason: "question"}
	if err := s.CreateWorkflow(ctx, &w); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.ID, "wf-") || !w.CreatedAt.Equal(fixed) {
		t.Fatalf("filled %+v", w)
	}
	got, err := s.Workflow(ctx, w.ID)
	if err != nil || !reflect.DeepEqual(got, w) {
		t.Fatalf("round trip:\n got %+v\nwant %+v (%v)", got, w, err)
	}
	if byName, err := s.WorkflowByName(ctx, "feature-x"); err != nil || byName.ID != w.ID {
		t.Fatalf("by name: %+v, %v", byName, err)
	}
	if err := s.CreateWorkflow(ctx, &Workflow{Name: "feature-x", Stage: "scoping"}); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("duplicate name: %v", err)
	}
	w.Stage, w.Path = "pulsing", "quick"
	if err := s.UpdateWorkflow(ctx, &w); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWorkflowStatus(ctx, w.ID, WorkflowCompleted, "done"); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Workflow(ctx, w.ID)
	if got.Stage != "pulsing" || got.Status != WorkflowCompleted || !got.EndedAt.Equal(fixed) {
		t.Fatalf("after update: %+v", got)
	}
	list, err := s.Workflows(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %v, %v", list, err)
	}
	for _, bad := range []struct {
		w    Workflow
		want string
	}{
		{Workflow{Stage: "x"}, "name is required"},
		{Workflow{Name: "n"}, "stage is required"},
		{Workflow{Name: "n", Stage: "x", Path: "slow"}, `invalid workflow path "slow"`},
		{Workflow{Name: "n", Stage: "x", Status: "Sleeping"}, `invalid workflow status "Sleeping"`},
	} {
		if err := s.CreateWorkflow(ctx, &bad.w); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("create %+v: %v, want %q", bad.w, err, bad.want)
		}
	}
	if _, err := s.Workflow(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing workflow: %v", err)
	}
}

func TestAdvanceStageClearsNotes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "notes")
	for _, c := range []string{"first", "second"} {
		if err := s.AddNote(ctx, &Note{WorkflowID: w.ID, Stage: "discussion", Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddNote(ctx, &Note{WorkflowID: w.ID, Stage: "scoping", Content: "later"}); err != nil {
		t.Fatal(err)
	}
	notes, _ := s.Notes(ctx, w.ID, "discussion")
	if len(notes) != 2 || notes[0].Content != "first" || notes[1].Content != "second" || !notes[0].CreatedAt.Equal(fixed) {
		t.Fatalf("notes = %+v", notes)
	}
	if err := s.AdvanceStage(ctx, w.ID, "scoping", "research"); err == nil || !strings.Contains(err.Error(), "it is in stage discussion") {
		t.Fatalf("advance from the wrong stage: %v", err)
	}
	if err := s.AdvanceStage(ctx, w.ID, "discussion", "scoping"); err != nil {
		t.Fatal(err)
	}
	if notes, _ := s.Notes(ctx, w.ID, "discussion"); len(notes) != 0 {
		t.Fatalf("discussion notes survived the transition: %+v", notes)
	}
	if notes, _ := s.Notes(ctx, w.ID, "scoping"); len(notes) != 1 {
		t.Fatalf("scoping notes = %+v", notes)
	}
	if got, _ := s.Workflow(ctx, w.ID); got.Stage != "scoping" {
		t.Fatalf("stage = %s", got.Stage)
	}
}

func TestCardRoundTrips(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "cards")
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"scope card", func(t *testing.T) {
			c := ScopeCard{WorkflowID: w.ID, Title: "Auth", Description: "JWT", InScope: []string{"login", "refresh"},
				OutOfScope: []string{"OAuth"}, Constraints: nil, RecommendedPath: "full", Rationale: "3+ files"}
			if err := s.AddScopeCard(ctx, &c); err != nil {
				t.Fatal(err)
			}
			list, err := s.ScopeCards(ctx, w.ID)
			if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], c) {
				t.Fatalf("round trip:\n got %+v\nwant %+v (%v)", list, c, err)
			}
			if _, err := s.ApprovedScopeCard(ctx, w.ID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("approved before approval: %v", err)
			}
			if err := s.ResolveCard(ctx, KindScope, c.ID, CardApproved, "ok"); err != nil {
				t.Fatal(err)
			}
			a, err := s.ApprovedScopeCard(ctx, w.ID)
			if err != nil || a.Status != CardApproved || a.Feedback != "ok" || !a.ResolvedAt.Equal(fixed) {
				t.Fatalf("approved = %+v, %v", a, err)
			}
			if err := s.ResolveCard(ctx, KindScope, c.ID, CardRejected, ""); err == nil || !strings.Contains(err.Error(), "already Approved") {
				t.Fatalf("second resolution: %v", err)
			}
			if err := s.AddScopeCard(ctx, &ScopeCard{WorkflowID: w.ID, Title: "x", RecommendedPath: "slow"}); err == nil || !strings.Contains(err.Error(), "recommended_path") {
				t.Fatalf("bad path: %v", err)
			}
		}},
		{"research", func(t *testing.T) {
			r := Research{WorkflowID: w.ID, Summary: "how it works",
				KeyFiles:          []KeyFile{{Path: "a.go", Purpose: "entry", LineRanges: "1-20"}},
				Patterns:          []Pattern{{Category: "errors", Description: "wrap", Example: "wrap with %w", Locations: []string{"a.go:3"}}},
				Dependencies:      []Dependency{{Name: "sqlite", Purpose: "store", UsageExample: "Open"}},
				IntegrationPoints: []IntegrationPoint{{Location: "b.go", Description: "hook", ExistingCode: "b.go:10"}},
				Challenges:        []Challenge{{Issue: "locking", Mitigation: "WAL"}},
				Recommendations:   []string{"do X"}}
			if err := s.AddResearch(ctx, &r); err != nil {
				t.Fatal(err)
			}
			list, err := s.ResearchCards(ctx, w.ID)
			if err != nil || len(list) != 1 || !reflect.DeepEqual(list[0], r) {
				t.Fatalf("round trip:\n got %+v\nwant %+v (%v)", list, r, err)
			}
			if err := s.ResolveCard(ctx, KindResearch, r.ID, CardRejected, "dig deeper"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ApprovedResearch(ctx, w.ID); !errors.Is(err, ErrNotFound) {
				t.Fatalf("rejected research approved? %v", err)
			}
		}},
		{"plan and pulses", func(t *testing.T) {
			p := Plan{WorkflowID: w.ID, ApproachSummary: "two steps", Pulses: []Pulse{
				{PlannedID: "pulse-1", Title: "types", Description: "add types", ExpectedChanges: []string{"a.go"}, EstimatedSize: "small"},
				{PlannedID: "pulse-2", Title: "wire", Description: "wire them", ExpectedChanges: []string{"b.go", "c.go"}, EstimatedSize: "medium", DependsOn: []string{"pulse-1"}},
			}}
			if err := s.AddPlan(ctx, &p); err != nil {
				t.Fatal(err)
			}
			got, err := s.LatestPlan(ctx, w.ID)
			if err != nil || !reflect.DeepEqual(got, p) {
				t.Fatalf("round trip:\n got %+v\nwant %+v (%v)", got, p, err)
			}
			if got.Pulses[1].Seq != 2 || got.Pulses[0].Status != PulseProposed {
				t.Fatalf("pulses = %+v", got.Pulses)
			}
			if err := s.ResolveCard(ctx, KindPlan, p.ID, CardApproved, ""); err != nil {
				t.Fatal(err)
			}
			if a, err := s.ApprovedPlan(ctx, w.ID); err != nil || len(a.Pulses) != 2 {
				t.Fatalf("approved plan = %+v, %v", a, err)
			}
			bad := Plan{WorkflowID: w.ID, ApproachSummary: "x", Pulses: []Pulse{{PlannedID: "a"}, {PlannedID: "a"}}}
			if err := s.AddPlan(ctx, &bad); err == nil || !strings.Contains(err.Error(), "used twice") {
				t.Fatalf("duplicate pulse ids: %v", err)
			}
			bad = Plan{WorkflowID: w.ID, ApproachSummary: "x", Pulses: []Pulse{{PlannedID: "a", EstimatedSize: "huge"}}}
			if err := s.AddPlan(ctx, &bad); err == nil || !strings.Contains(err.Error(), "estimatedSize") {
				t.Fatalf("bad size: %v", err)
			}
			var n int
			if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM plans WHERE approach_summary='x'`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("a failed AddPlan left %d plans behind (%v)", n, err)
			}
		}},
		{"unknown card kind", func(t *testing.T) {
			if err := s.ResolveCard(ctx, "idea", "x", CardApproved, ""); err == nil || !strings.Contains(err.Error(), "invalid card kind") {
				t.Fatalf("kind: %v", err)
			}
			if err := s.ResolveCard(ctx, KindPlan, "x", "Maybe", ""); err == nil || !strings.Contains(err.Error(), "use Approved or Rejected") {
				t.Fatalf("status: %v", err)
			}
			if err := s.ResolveCard(ctx, KindPlan, "missing", CardApproved, ""); !errors.Is(err, ErrNotFound) {
				t.Fatalf("missing: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func TestPulseLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "pulses")
	p := Pulse{WorkflowID: w.ID, PlannedID: "quick-1", Description: "one shot"}
	if err := s.AddPulse(ctx, &p); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishPulse(ctx, p.ID, PulseEnd{Status: PulseSucceeded}); err == nil || !strings.Contains(err.Error(), "not Running") {
		t.Fatalf("finish a Proposed pulse: %v", err)
	}
	if err := s.StartPulse(ctx, p.ID, PulseStart{PulseBranch: "autarch-pulse/pulses/quick-1", WorktreePath: "/wt"}); err != nil {
		t.Fatal(err)
	}
	if err := s.StartPulse(ctx, p.ID, PulseStart{}); err == nil || !strings.Contains(err.Error(), "it is Running") {
		t.Fatalf("start twice: %v", err)
	}
	if err := s.SetInitiatingMessage(ctx, p.ID, 42); err != nil {
		t.Fatal(err)
	}
	for want := 1; want <= 3; want++ {
		if n, err := s.AddRejection(ctx, p.ID); err != nil || n != want {
			t.Fatalf("rejection %d: %d, %v", want, n, err)
		}
	}
	if n, err := s.AddExtension(ctx, p.ID); err != nil || n != 1 {
		t.Fatalf("extension: %d, %v", n, err)
	}
	end := PulseEnd{Status: PulseSucceeded, Summary: "feat(x): y", CheckpointCommit: "c0ffee", Diff: DiffStats{Files: 2, Additions: 10, Deletions: 3},
		UnresolvedIssues: []UnresolvedIssue{{Issue: "flaky", Reason: "pre-existing"}}}
	if err := s.FinishPulse(ctx, p.ID, end); err != nil {
		t.Fatal(err)
	}
	got, err := s.Pulse(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := p
	want.Status, want.Summary, want.CheckpointCommit, want.Diff, want.UnresolvedIssues = PulseSucceeded, end.Summary, end.CheckpointCommit, end.Diff, end.UnresolvedIssues
	want.PulseBranch, want.WorktreePath, want.InitiatingMessageID = "autarch-pulse/pulses/quick-1", "/wt", 42
	want.RejectionCount, want.ExtensionCount, want.StartedAt, want.EndedAt = 3, 1, fixed, fixed
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pulse:\n got %+v\nwant %+v", got, want)
	}
	if !got.HasUnresolvedIssues() {
		t.Fatal("HasUnresolvedIssues false")
	}
	if err := s.FinishPulse(ctx, p.ID, PulseEnd{Status: "Done"}); err == nil || !strings.Contains(err.Error(), "invalid end status") {
		t.Fatalf("bad end status: %v", err)
	}
	if list, err := s.WorkflowPulses(ctx, w.ID); err != nil || len(list) != 1 {
		t.Fatalf("workflow pulses: %v, %v", list, err)
	}
}

func TestRecoverInterrupted(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "crashy")
	var ids []string
	for _, id := range []string{"p1", "p2", "p3"} {
		p := Pulse{WorkflowID: w.ID, PlannedID: id}
		if err := s.AddPulse(ctx, &p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	s.StartPulse(ctx, ids[0], PulseStart{})
	s.FinishPulse(ctx, ids[0], PulseEnd{Status: PulseSucceeded, Summary: "feat: a"})
	s.StartPulse(ctx, ids[1], PulseStart{PulseBranch: "b"})
	pre := PreflightSetup{WorkflowID: w.ID}
	if err := s.StartPreflight(ctx, &pre); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecoverInterrupted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Pulses) != 1 || got.Pulses[0].ID != ids[1] || got.Pulses[0].Status != PulseStopped || got.Pulses[0].FailureReason != InterruptedReason {
		t.Fatalf("interrupted pulses = %+v", got.Pulses)
	}
	if len(got.Preflights) != 1 || got.Preflights[0].Status != PreflightFailed {
		t.Fatalf("interrupted preflights = %+v", got.Preflights)
	}
	for i, want := range []PulseStatus{PulseSucceeded, PulseStopped, PulseProposed} {
		if p, _ := s.Pulse(ctx, ids[i]); p.Status != want {
			t.Fatalf("pulse %d is %s, want %s", i, p.Status, want)
		}
	}
	if err := s.RecordRecovery(ctx, ids[1], "dead", DiffStats{Files: 1}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Pulse(ctx, ids[1]); !p.IsRecoveryCheckpoint || p.CheckpointCommit != "dead" {
		t.Fatalf("recorded recovery = %+v", p)
	}
	if err := s.RecordRecovery(ctx, ids[2], "x", DiffStats{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("recovery of a Proposed pulse: %v", err)
	}
	if again, _ := s.RecoverInterrupted(ctx); len(again.Pulses)+len(again.Preflights) != 0 {
		t.Fatalf("second recovery found %+v", again)
	}
	// A stopped pulse can be resumed.
	if err := s.StartPulse(ctx, ids[1], PulseStart{}); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Pulse(ctx, ids[1]); p.Status != PulseRunning || p.FailureReason != "" {
		t.Fatalf("resumed = %+v", p)
	}
}

func TestPreflightAndBaselines(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "pre")
	p := PreflightSetup{WorkflowID: w.ID, ChannelID: "ch-1", ProgressMessage: "starting"}
	if err := s.StartPreflight(ctx, &p); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPreflightProgress(ctx, p.ID, "npm install"); err != nil {
		t.Fatal(err)
	}
	res := PreflightResult{Summary: "installed", SetupCommands: []string{"npm ci", "npm run build"}, BuildSuccess: true, BaselinesRecorded: 2}
	if err := s.CompletePreflight(ctx, p.ID, res); err != nil {
		t.Fatal(err)
	}
	got, err := s.LatestPreflight(ctx, w.ID)
	want := PreflightSetup{ID: p.ID, WorkflowID: w.ID, ChannelID: "ch-1", Status: PreflightCompleted, ProgressMessage: "npm install",
		Summary: "installed", SetupCommands: res.SetupCommands, BuildSuccess: true, BaselinesRecorded: 2, CreatedAt: fixed, CompletedAt: fixed}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("preflight:\n got %+v\nwant %+v (%v)", got, want, err)
	}
	if err := s.FailPreflight(ctx, p.ID, "late"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("fail a completed preflight: %v", err)
	}
	stored := addEach(t, "baseline", false, func(b *Baseline) error {
		b.WorkflowID = w.ID
		return s.AddBaseline(ctx, b)
	}, []addCase[Baseline]{
		{Baseline{IssueType: "Warning", Source: "Build", Pattern: "CS0618", FilePath: "src/Legacy.cs", Description: "Obsolete API"}, ""},
		{Baseline{IssueType: "Error", Source: "Lint", Pattern: "unused variable"}, ""},
		{Baseline{IssueType: "Info", Source: "Build", Pattern: "x"}, "Invalid issueType 'Info'. Must be 'Error' or 'Warning'."},
		{Baseline{IssueType: "Error", Source: "Compile", Pattern: "x"}, "Invalid source 'Compile'. Must be 'Build', 'Lint', or 'Test'."},
		{Baseline{IssueType: "Error", Source: "Test", Pattern: " "}, "pattern is required"},
	})
	list, err := s.Baselines(ctx, w.ID)
	if err != nil || !reflect.DeepEqual(list, stored) {
		t.Fatalf("baselines:\n got %+v\nwant %+v (%v)", list, stored, err)
	}
}

func TestReviewRecords(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "rev")
	r := ReviewCard{WorkflowID: w.ID, BaseRef: "main", HeadRef: "autarch/rev", DiffBase: "aaa", DiffHead: "bbb"}
	if err := s.CreateReview(ctx, &r); err != nil {
		t.Fatal(err)
	}
	loose := ReviewCard{BaseRef: "v1.0", HeadRef: "HEAD"}
	if err := s.CreateReview(ctx, &loose); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Review(ctx, loose.ID); err != nil || got.WorkflowID != "" {
		t.Fatalf("review outside a workflow: %+v, %v", got, err)
	}
	stored := addEach(t, "comment", true, func(c *ReviewComment) error {
		c.ReviewID = r.ID
		return s.AddComment(ctx, c)
	}, []addCase[ReviewComment]{
		{ReviewComment{Type: CommentLine, FilePath: "a.go", StartLine: 3, EndLine: 5, Severity: "High", Category: "bug", Description: "nil deref", Suggestion: "check nil"}, ""},
		{ReviewComment{Type: CommentLine, FilePath: "a.go", StartLine: 7, Severity: "Low", Category: "style", Description: "name", PreExisting: true}, ""},
		{ReviewComment{Type: CommentFile, FilePath: "b.go", Severity: "Medium", Category: "architecture", Description: "split"}, ""},
		{ReviewComment{Type: CommentReview, Severity: "Low", Category: "tests", Description: "more tests"}, ""},
		{ReviewComment{Type: CommentLine, FilePath: "a.go", StartLine: 1, Severity: "Critical", Category: "bug", Description: "x"}, "Invalid severity 'Critical'. Must be High, Medium, or Low."},
		{ReviewComment{Type: CommentLine, StartLine: 1, Severity: "Low", Category: "bug", Description: "x"}, "file_path is required for line comments"},
		{ReviewComment{Type: CommentLine, FilePath: "a.go", StartLine: 0, Severity: "Low", Category: "bug", Description: "x"}, "start_line must be a positive integer"},
		{ReviewComment{Type: CommentLine, FilePath: "a.go", StartLine: 5, EndLine: 4, Severity: "Low", Category: "bug", Description: "x"}, "end_line must be greater than or equal to start_line"},
		{ReviewComment{Type: CommentFile, Severity: "Low", Category: "bug", Description: "x"}, "file_path is required for file comments"},
		{ReviewComment{Type: "hunk", Severity: "Low", Category: "bug", Description: "x"}, `invalid comment type "hunk"`},
	})
	list, err := s.Comments(ctx, r.ID)
	if err != nil || !reflect.DeepEqual(list, stored) {
		t.Fatalf("comments:\n got %+v\nwant %+v (%v)", list, stored, err)
	}
	missing := ReviewComment{ReviewID: "nope", Type: CommentReview, Severity: "Low", Category: "x", Description: "y"}
	if err := s.AddComment(ctx, &missing); err == nil || err.Error() != "Review card not found" || !errors.Is(err, ErrNotFound) {
		t.Fatalf("comment on a missing review: %v", err)
	}
	for _, tt := range []struct{ rec, sum, want string }{
		{"pass", "x", "Invalid recommendation 'pass'. Must be one of: approve, reject, manual_review."},
		{"approve", " ", "Summary is required."},
	} {
		if err := s.CompleteReview(ctx, r.ID, tt.rec, tt.sum); err == nil || err.Error() != tt.want {
			t.Errorf("complete(%q, %q) = %v, want %q", tt.rec, tt.sum, err, tt.want)
		}
	}
	if err := s.CompleteReview(ctx, "nope", "approve", "fine"); err != ErrReviewNotFound {
		t.Fatalf("complete a missing review: %v", err)
	}
	if err := s.CompleteReview(ctx, r.ID, "manual_review", "needs a human"); err != nil {
		t.Fatal(err)
	}
	got, err := s.LatestReview(ctx, w.ID)
	want := r
	want.Status, want.Recommendation, want.Summary, want.CompletedAt = ReviewCompleted, "manual_review", "needs a human", fixed
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("review:\n got %+v\nwant %+v (%v)", got, want, err)
	}
	late := ReviewComment{ReviewID: r.ID, Type: CommentReview, Severity: "Low", Category: "x", Description: "y"}
	if err := s.AddComment(ctx, &late); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("comment after completion: %v", err)
	}
}

func TestConversationRecords(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "talk")
	msgs := []Message{
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Role: "system", Content: "you are"},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Role: "assistant", Content: "", Data: json.RawMessage(`{"tool_calls":[{"id":"c1"}]}`)},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Role: "tool", Content: "ok", Data: json.RawMessage(`{"tool_call_id":"c1"}`)},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p2", Role: "user", Content: "other pulse"},
	}
	for i := range msgs {
		if err := s.AddMessage(ctx, &msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Messages(ctx, w.ID, "pulsing", "p1")
	if err != nil || !reflect.DeepEqual(got, msgs[:3]) {
		t.Fatalf("messages of p1:\n got %+v\nwant %+v (%v)", got, msgs[:3], err)
	}
	if err := s.AddMessage(ctx, &Message{WorkflowID: w.ID, Stage: "x", Role: "robot"}); err == nil || !strings.Contains(err.Error(), "invalid message role") {
		t.Fatalf("bad role: %v", err)
	}
	if err := s.AddMessage(ctx, &Message{WorkflowID: w.ID, Stage: "x", Role: "user", Data: json.RawMessage("{")}); err == nil {
		t.Fatal("bad JSON accepted")
	}
	if err := s.AddMessage(ctx, &Message{WorkflowID: "no-such-workflow", Stage: "x", Role: "user"}); err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Fatalf("foreign key not enforced: %v", err)
	}

	call := ToolCall{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", CallID: "c1", Name: "shell", Args: json.RawMessage(`{"command":"go build"}`), Reason: "build it"}
	if err := s.AddToolCall(ctx, &call); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishToolCall(ctx, call.ID, "exit 1: undefined: x", run.OutcomeFailed); err != nil {
		t.Fatal(err)
	}
	calls, err := s.ToolCalls(ctx, w.ID, "p1")
	want := call
	want.ResultSummary, want.Outcome, want.Failed, want.EndedAt = "exit 1: undefined: x", run.OutcomeFailed, true, fixed
	if err != nil || len(calls) != 1 || !reflect.DeepEqual(calls[0], want) {
		t.Fatalf("tool calls:\n got %+v\nwant %+v (%v)", calls, want, err)
	}
	if err := s.FinishToolCall(ctx, 9999, "", run.OutcomeOK); !errors.Is(err, ErrNotFound) {
		t.Fatalf("finish a missing call: %v", err)
	}
	// A sub-agent's call is stored as a child of its dispatch call; one
	// that names a parent without its sub-agent type is refused.
	child := ToolCall{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", CallID: "c1", ParentCallID: "c1", Subagent: "explore", Name: "read_file",
		Args: json.RawMessage(`{"path":"a.go"}`), Reason: "read a.go"}
	if err := s.AddToolCall(ctx, &child); err != nil {
		t.Fatal(err)
	}
	calls, err = s.ToolCalls(ctx, w.ID, "p1")
	if err != nil || len(calls) != 2 || !reflect.DeepEqual(calls[1], child) {
		t.Fatalf("tool calls with a sub-agent's:\n got %+v\nwant %+v after the dispatch call (%v)", calls, child, err)
	}
	orphan := ToolCall{WorkflowID: w.ID, Stage: "pulsing", CallID: "c2", ParentCallID: "c1", Name: "grep"}
	if err := s.AddToolCall(ctx, &orphan); err == nil || !strings.Contains(err.Error(), "needs its sub-agent type") {
		t.Fatalf("a sub-agent's call without its type: %v", err)
	}

	for _, u := range []Usage{
		{WorkflowID: w.ID, Stage: "scoping", Model: "m", PromptTokens: 100, CompletionTokens: 10, Cost: 0.001},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Model: "m", PromptTokens: 200, CompletionTokens: 20, Cost: 0.002},
		{WorkflowID: w.ID, Stage: "pulsing", PulseID: "p1", Model: "m", PromptTokens: 300, CompletionTokens: 30, Cost: 0.003},
	} {
		if err := s.AddUsage(ctx, &u); err != nil {
			t.Fatal(err)
		}
	}
	total, err := s.WorkflowUsage(ctx, w.ID)
	if err != nil || total.Calls != 3 || total.PromptTokens != 600 || total.CompletionTokens != 60 || !near(total.Cost, 0.006) {
		t.Fatalf("workflow usage = %+v, %v", total, err)
	}
	per, err := s.PulseUsage(ctx, w.ID)
	if err != nil || per["p1"].Calls != 2 || per["p1"].PromptTokens != 500 || per[""].Calls != 1 {
		t.Fatalf("pulse usage = %+v, %v", per, err)
	}
	if err := s.AddUsage(ctx, &Usage{WorkflowID: w.ID, Stage: "x", PromptTokens: -1}); err == nil {
		t.Fatal("negative usage accepted")
	}

	q := Pending{WorkflowID: w.ID, Stage: "scoping", Kind: "questions", Payload: json.RawMessage(`{"questions":[{"type":"free_text","prompt":"why?"}]}`)}
	if err := s.AddPending(ctx, &q); err != nil {
		t.Fatal(err)
	}
	open, err := s.OpenPending(ctx, w.ID)
	if err != nil || len(open) != 1 || !reflect.DeepEqual(open[0], q) {
		t.Fatalf("open pending:\n got %+v\nwant %+v (%v)", open, q, err)
	}
	if err := s.AnswerPending(ctx, q.ID, json.RawMessage(`["because"]`)); err != nil {
		t.Fatal(err)
	}
	if err := s.AnswerPending(ctx, q.ID, json.RawMessage(`["again"]`)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("answer twice: %v", err)
	}
	got1, err := s.PendingItem(ctx, q.ID)
	if err != nil || got1.Status != PendingAnswered || string(got1.Answer) != `["because"]` || !got1.ResolvedAt.Equal(fixed) {
		t.Fatalf("answered = %+v, %v", got1, err)
	}
	if open, _ := s.OpenPending(ctx, w.ID); len(open) != 0 {
		t.Fatalf("still open: %+v", open)
	}

	// Deleting the workflow deletes everything of it.
	if err := s.DeleteWorkflow(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"messages", "tool_calls", "usage", "pending", "notes"} {
		var n int
		s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table).Scan(&n)
		if n != 0 {
			t.Errorf("%d rows left in %s after deleting the workflow", n, table)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestUpdateIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	w := newWorkflow(t, s, "atomic")
	boom := errors.New("boom")
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.AddNote(ctx, &Note{WorkflowID: w.ID, Stage: "discussion", Content: "half"}); err != nil {
			return err
		}
		if err := tx.AdvanceStage(ctx, w.ID, "discussion", "scoping"); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update = %v", err)
	}
	if notes, _ := s.Notes(ctx, w.ID, "discussion"); len(notes) != 0 {
		t.Fatal("a rolled-back note persisted")
	}
	if got, _ := s.Workflow(ctx, w.ID); got.Stage != "discussion" {
		t.Fatalf("a rolled-back stage change persisted: %s", got.Stage)
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.AddNote(ctx, &Note{WorkflowID: w.ID, Stage: "scoping", Content: "kept"}); err != nil {
			return err
		}
		return tx.AdvanceStage(ctx, w.ID, "discussion", "scoping")
	})
	if err != nil {
		t.Fatal(err)
	}
	if notes, _ := s.Notes(ctx, w.ID, "scoping"); len(notes) != 1 {
		t.Fatal("committed note missing")
	}
}
