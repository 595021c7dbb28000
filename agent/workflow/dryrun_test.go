package workflow_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/treehash"
	"github.com/autarch-dev/autarch/workspace/trust"
)

var updateDryRun = flag.Bool("update", false, "rewrite the dry-run plan golden files in testdata/dryrun")

// repoFingerprint hashes everything a repository is: every file and
// directory under dir, .git included (HEAD, refs, the index, objects,
// config, worktree metadata), and git's own view of its HEAD, refs and
// worktrees. It lists the paths that exist so that a difference can be
// told.
func repoFingerprint(t *testing.T, dir string) (string, []string) {
	t.Helper()
	sum, paths, err := treehash.Sum(dir)
	must(t, err)
	h := sha256.New()
	fmt.Fprintln(h, sum)
	for _, args := range [][]string{{"symbolic-ref", "HEAD"}, {"rev-parse", "HEAD"}, {"for-each-ref"}, {"worktree", "list", "--porcelain"}, {"stash", "list"}} {
		fmt.Fprintf(h, "git %v\n%s", args, testkit.Git(t, dir, args...))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), paths
}

// dryRunRepo makes the quick dry-run scenario's repository and starts its
// scripted model (its first steps only when steps > 0).
func dryRunRepo(t *testing.T, first ...int) (dir string, cfg scenarioConfig, url string, model *scripted.Server) {
	t.Helper()
	sc := testkit.LoadScenario(t, "testdata/dryrun/quick-path.txt")
	sc.Decode(t, &cfg, nil)
	dir = sc.NewRepo(t)
	if len(first) > 0 {
		sc.Steps = sc.Steps[:first[0]]
	}
	url, model = sc.StartModel(t)
	return dir, cfg, url, model
}

// A dry run of a whole quick workflow against the scripted model: the
// card is asked as usual, reads run on the user's files, writes and
// commands are only planned, the plan reads as the golden file says, and
// the repository is byte-identical afterwards: no worktree, no branch, no
// commit, no store under .git.
func TestDryRunQuickWorkflow(t *testing.T) {
	dir, cfg, url, model := dryRunRepo(t)
	before, beforePaths := repoFingerprint(t, dir)

	ctx := context.Background()
	p, err := workflow.OpenDryRun(ctx, dir, trust.At(filepath.Join(t.TempDir(), "trust.json")))
	must(t, err)
	ed := &testkit.Editor{T: t, Approvals: cfg.Approvals, NoChat: true}
	var events []workflow.Event
	e, err := p.Engine(ctx, workflow.Config{Editor: ed,
		Model:    openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1}),
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: tools.ModeConfirmSensitive,
		StopPoll: 10 * time.Millisecond,
		Log:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events:   func(ev workflow.Event) { events = append(events, ev) }})
	must(t, err)
	if !e.DryRun() {
		t.Fatal("an engine over OpenDryRun's project does not run dry")
	}
	wf, err := e.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name})
	must(t, err)
	wf, err = e.Run(ctx, wf.ID)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	if wf.Stage != string(workflow.StageDone) || wf.Status != store.WorkflowCompleted || !strings.Contains(wf.StatusReason, "dry run completed: 5 actions planned") {
		t.Errorf("workflow ended in %s, %s (%s); want done, Completed, dry run completed", wf.Stage, wf.Status, wf.StatusReason)
	}
	plan := e.Plan(wf.ID)
	must(t, p.Close())

	if after, afterPaths := repoFingerprint(t, dir); after != before {
		t.Errorf("the dry run changed the repository:\nbefore %q\nafter  %q", beforePaths, afterPaths)
	}
	if got := strings.Join(ed.Kinds(), ","); got != "scope" {
		t.Errorf("approvals asked = %q, want only the scope card (recorded calls are not confirmed)", got)
	}
	testkit.CheckModel(t, model)
	for _, ev := range events {
		if ev.Kind == "pulse" && ev.Status == string(workflow.PulseSucceeded) && !strings.Contains(ev.Text, "dry run: nothing committed") {
			t.Errorf("pulse event %q does not say nothing was committed", ev.Text)
		}
	}
	got := plan.Summary()
	testkit.Golden(t, "testdata/dryrun/quick-path.golden", []byte(got), *updateDryRun)
}

// planEvents are the side panel's dry-run plan events the editor was sent.
func planEvents(t *testing.T, ed *testkit.Editor) []editor.DryRunPlanView {
	t.Helper()
	var plans []editor.DryRunPlanView
	for _, n := range ed.Notifications() {
		ev, ok := n.Params.(editor.WorkflowEvent)
		if n.Method != editor.MethodWorkflowEvent || !ok || ev.Kind != editor.EventDryRunPlan {
			continue
		}
		if ev.DryRun == nil {
			t.Errorf("a dry_run_plan event without its plan: %+v", ev)
			continue
		}
		plans = append(plans, *ev.DryRun)
	}
	return plans
}

// The editor's start-workflow request with dryRun runs the workflow dry on
// an engine of its own: the card is asked as usual, the plan is shown (a
// message, the whole plan in the log), nothing is listed afterwards and
// the repository is unchanged.
func TestSessionStartsADryRun(t *testing.T) {
	dir, cfg, url, model := dryRunRepo(t)
	before, _ := repoFingerprint(t, dir)
	ed := &testkit.Editor{T: t, Approvals: cfg.Approvals, NoChat: true}
	s := dryRunSession(ed, dir, url)
	ctx := context.Background()
	ref, err := s.Start(ctx, editor.NewWorkflowParams{Task: cfg.Task, Name: cfg.Name, DryRun: true})
	must(t, err)
	if ref.WorkflowID == "" || ref.Name != cfg.Name {
		t.Errorf("ref = %+v", ref)
	}
	testkit.CheckFor(t, 30*time.Second, 20*time.Millisecond, shownMessage(ed))
	s.Close(5 * time.Second)
	msgs, logs := ed.Messages(), ed.Logs()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "dry run of saturate-dry done: 5 actions planned, nothing was changed") {
		t.Errorf("messages = %q", msgs)
	}
	golden, err := os.ReadFile("testdata/dryrun/quick-path.golden")
	must(t, err)
	if !slices.ContainsFunc(logs, func(l string) bool { return strings.HasSuffix(l, string(golden)) }) {
		t.Errorf("the log does not hold the whole plan:\n%s", strings.Join(logs, "\n"))
	}
	if after, paths := repoFingerprint(t, dir); after != before {
		t.Errorf("the editor's dry run changed the repository: %q", paths)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
	checkPlanEvents(t, planEvents(t, ed), ref.WorkflowID)
}

// dryRunSession is an editor session over dir whose engines use the
// scripted model at url.
func dryRunSession(ed editor.Client, dir, url string) *workflow.Service {
	s := workflow.NewService(workflow.ServiceConfig{Editor: ed,
		Events: func(ev workflow.Event) { _ = ed.Notify(context.Background(), editor.MethodWorkflowEvent, ev) },
		Log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Wire: func(ctx context.Context, p *workflow.Project, c *workflow.Config) error {
			c.Model = openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1})
			c.Settings = agent.Settings{Model: "scripted", ContextWindow: 128000}
			c.Mode, c.StopPoll = tools.ModeConfirmSensitive, 10*time.Millisecond
			return nil
		}})
	s.SetFolders([]string{dir})
	return s
}

// checkPlanEvents checks the side panel's view of the quick dry run: one
// event per recorded call as it is made, then the whole plan, ended.
func checkPlanEvents(t *testing.T, plans []editor.DryRunPlanView, workflowID string) {
	t.Helper()
	if len(plans) != 6 {
		t.Fatalf("%d dry_run_plan events, want 5 as the calls are recorded and 1 at the end: %+v", len(plans), plans)
	}
	for i, p := range plans[:5] {
		if len(p.Entries) != i+1 || p.Ended {
			t.Errorf("event %d: %d entries, ended %v; want %d, not ended", i, len(p.Entries), p.Ended, i+1)
		}
	}
	last := plans[5]
	if !last.Ended || !strings.Contains(last.Outcome, "dry run of saturate-dry done: 5 actions planned") {
		t.Errorf("last event: ended %v, outcome %q", last.Ended, last.Outcome)
	}
	wantEntries := []editor.DryRunEntryView{
		{Stage: "preflight", Tool: "shell", Action: "would run `go mod download && touch preflight-ran` (dangerous)", Reason: "Fetch dependencies"},
		{Stage: "pulse pulse-1", Tool: "edit_file", Action: "would edit calc.go: replace 2 lines with 11", Reason: "Saturate Add", Path: "calc.go", Change: "replace 2 lines with 11"},
		{Stage: "pulse pulse-1", Tool: "edit_file", Action: "would edit calc.go: replace 1 line with 3", Reason: "Import math", Path: "calc.go", Change: "replace 1 line with 3"},
		{Stage: "pulse pulse-1", Tool: "write_file", Action: "would write saturate_test.go (12 lines, new file)", Reason: "Test the saturation", Path: "saturate_test.go", Change: "new file (12 lines)"},
		{Stage: "pulse pulse-1", Tool: "shell", Action: "would run `go test ./...` (dev)", Reason: "Run the tests"},
	}
	if !slices.Equal(last.Entries, wantEntries) {
		t.Errorf("entries:\n got %+v\nwant %+v", last.Entries, wantEntries)
	}
	wantFiles := []editor.DryRunFileView{{Path: "calc.go", Changes: []string{"replace 2 lines with 11", "replace 1 line with 3"}}, {Path: "saturate_test.go", Changes: []string{"new file (12 lines)"}}}
	if !slices.EqualFunc(last.Files, wantFiles, func(a, b editor.DryRunFileView) bool { return a.Path == b.Path && slices.Equal(a.Changes, b.Changes) }) {
		t.Errorf("files:\n got %+v\nwant %+v", last.Files, wantFiles)
	}
}

// A card dismissed during an editor's dry run ends it (its state lived in
// a temporary store, so nothing could answer the card later): the user is
// told, and the panel's last plan event says it ended, so the panel drops
// the card.
func TestSessionDryRunEndsWhenACardIsDismissed(t *testing.T) {
	dir, cfg, url, _ := dryRunRepo(t, 1) // scoping only
	ed := &testkit.Editor{T: t, Approvals: []string{"dismiss"}, NoChat: true}
	s := dryRunSession(ed, dir, url)
	ref, err := s.Start(context.Background(), editor.NewWorkflowParams{Task: cfg.Task, Name: cfg.Name, DryRun: true})
	must(t, err)
	testkit.CheckFor(t, 30*time.Second, 20*time.Millisecond, shownMessage(ed))
	s.Close(5 * time.Second)
	msgs := ed.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "the dry run of saturate-dry ended in scoping: what it asked was dismissed") || !strings.Contains(msgs[0], "Start it again") {
		t.Errorf("messages = %q", msgs)
	}
	plans := planEvents(t, ed)
	if len(plans) == 0 || !plans[len(plans)-1].Ended || !strings.Contains(plans[len(plans)-1].Outcome, "was dismissed") {
		t.Fatalf("the panel was not told that the dry run %s ended: %+v", ref.WorkflowID, plans)
	}
	if got := ed.Kinds(); !slices.Equal(got, []string{"scope"}) {
		t.Errorf("asked %q, want the scope card only", got)
	}
}

// shownMessage holds once the editor was shown a message.
func shownMessage(ed *testkit.Editor) func() error {
	return func() error {
		if len(ed.Messages()) == 0 {
			return errors.New("no message shown")
		}
		return nil
	}
}
