package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestFleetRunOverLSP drives a fleet run from the editor: without
// autarch.fleet.natsUrl Run in Background says what to set; with it
// (didChangeConfiguration) autarch/fleetSubmit queues the run; a worker
// (the fleet's own claimer, in the test) claims it, and autarch/runs
// lists it with its worker and, once it asks, its question and the card
// before it; autarch/fleetAnswer reaches the worker; once the worker
// pushed its branch and completed, autarch/fleetApply fetches the branch
// from the remote and applies it as an edit.
func TestFleetRunOverLSP(t *testing.T) {
	natsURL := testkit.StartNATS(t)
	// the model is the workers': the editor's is never called here
	h, url, dir := newHarness(t, wired), "http://127.0.0.1:9/v1", calcRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testkit.Git(t, dir, "clone", "-q", "--bare", dir, remote)
	testkit.Git(t, dir, "remote", "add", "origin", remote)
	rec := h.recordEditor(func(editor.Approval) editor.Verdict { return editor.Verdict{Decision: editor.DecisionApprove} })
	initJobServer(t, h, url, dir)

	submit := editor.FleetSubmitParams{Kind: "workflow", Task: "Add Sub", Name: "add-sub"}
	if err := h.call(editor.MethodFleetSubmit, submit, nil); err == nil || !strings.Contains(err.Error(), "autarch.fleet.natsUrl") {
		t.Fatalf("Run in Background without a fleet: %v", err)
	}
	if err := h.client.Notify(context.Background(), "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"autarch": editor.Settings{
		Model: editor.ModelSettings{Name: "scripted", BaseURL: url}, Fleet: editor.FleetSettings{NatsURL: natsURL}}}}); err != nil {
		t.Fatal(err)
	}
	if err := h.call(editor.MethodFleetSubmit, editor.FleetSubmitParams{Task: "Add Sub", Kind: "swarm"}, nil); err == nil || !strings.Contains(err.Error(), "use workflow or job") {
		t.Errorf("a bad kind was submitted: %v", err)
	}
	var ref editor.FleetRunRef
	testkit.CheckFor(t, 10*time.Second, 50*time.Millisecond, func() error { // the new settings arrive as a notification
		return h.call(editor.MethodFleetSubmit, submit, &ref)
	})

	// a worker claims it and asks the submitter
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, closeFleet, err := fleet.Connect(ctx, fleet.ConnOptions{URL: natsURL}, fleet.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeFleet()
	claimer, err := f.NewClaimer(ctx, "worker-1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := claimer.Next(ctx)
	if err != nil || cl.Run.ID != ref.ID {
		t.Fatalf("claimed %+v, %v; want run %s", cl, err, ref.ID)
	}
	if cl.Run.Spec.Repo != remote || cl.Run.Spec.Task != "Add Sub" || cl.Run.Spec.Submitter == "" {
		t.Errorf("the run's spec = %+v; want the project's origin %s", cl.Run.Spec, remote)
	}
	answers := make(chan string, 1)
	unsub, err := f.Answers(ref.ID, func(line string) { answers <- line })
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	for _, ev := range []kernel.Event{
		{Run: cl.Run.Ref(), Kind: kernel.EventStatus, Status: kernel.Running, Text: "worker worker-1 runs it (attempt 1)"},
		{Run: cl.Run.Ref(), Kind: kernel.EventMessage, Text: "Scope card: add Sub to calc.go"},
		{Run: cl.Run.Ref(), Kind: kernel.EventText, Text: "Approve the scope? [y/N/feedback] "},
	} {
		if err := f.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	listed := h.waitRun(ref.ID, func(r editor.RunSummary) bool { return r.Prompt != "" })
	if listed.Kind != "workflow" || !listed.Fleet || listed.Worker != "worker-1" || listed.Status != string(fleet.Running) || listed.Name != "add-sub" ||
		listed.Prompt != "Approve the scope? [y/N/feedback]" || !slices.Contains(listed.Context, "Scope card: add Sub to calc.go") {
		t.Errorf("listed fleet run = %+v", listed)
	}
	if err := h.call(editor.MethodFleetAnswer, editor.FleetAnswerParams{ID: ref.ID, Answer: "y"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-answers:
		if a != "y" {
			t.Errorf("the worker got %q", a)
		}
	case <-ctx.Done():
		t.Fatal("the answer did not reach the worker")
	}
	if got := h.waitRun(ref.ID, func(r editor.RunSummary) bool { return r.Prompt == "" }); got.Prompt != "" {
		t.Errorf("the answered question is still listed: %+v", got)
	}
	var applied editor.ApplyWorkflowResult
	if err := h.call(editor.MethodFleetApply, editor.FleetApplyParams{ID: ref.ID, Mode: "edit"}, &applied); err == nil || !strings.Contains(err.Error(), "once it completed") {
		t.Errorf("a running fleet run was applied: %+v, %v", applied, err)
	}

	// the worker pushes its checkpoint and completes
	work := filepath.Join(t.TempDir(), "work")
	testkit.Git(t, t.TempDir(), "clone", "-q", remote, work)
	testkit.Git(t, work, "checkout", "-q", "-b", "autarch/add-sub")
	os.WriteFile(filepath.Join(work, "calc.go"), []byte("package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n"), 0o644)
	testkit.Git(t, work, "-c", "user.name=W", "-c", "user.email=w@example.com", "commit", "-q", "-am", "feat(calc): add Sub")
	testkit.Git(t, work, "push", "-q", "origin", "autarch/add-sub")
	base := strings.TrimSpace(testkit.Git(t, dir, "rev-parse", "HEAD"))
	if err := cl.Record(ctx, func(r *fleet.Run) { r.Branch, r.Spec.BaseCommit = "autarch/add-sub", base }); err != nil {
		t.Fatal(err)
	}
	if err := cl.Finish(ctx, fleet.Completed, "review done"); err != nil {
		t.Fatal(err)
	}
	if err := f.Publish(ctx, kernel.Event{Run: cl.Run.Ref(), Kind: kernel.EventStatus, Status: kernel.Done, Text: "review done"}); err != nil {
		t.Fatal(err)
	}
	done := h.waitRun(ref.ID, func(r editor.RunSummary) bool { return r.Status == string(fleet.Completed) })
	if done.Branch != "autarch/add-sub" {
		t.Errorf("completed fleet run = %+v", done)
	}
	h.waitFleetEvent(ref.ID, "status")
	other, err := f.Submit(ctx, fleet.Spec{Kind: fleet.Workflow, Repo: "https://example.com/other.git", Task: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.call(editor.MethodFleetApply, editor.FleetApplyParams{ID: other.ID, Mode: "edit"}, &applied); err == nil || !strings.Contains(err.Error(), "not a run of this project") {
		t.Errorf("another repository's fleet run was applied here: %+v, %v", applied, err)
	}
	var all []editor.RunSummary
	if err := h.call(editor.MethodRuns, struct{}{}, &all); err != nil || slices.ContainsFunc(all, func(r editor.RunSummary) bool { return r.ID == other.ID }) {
		t.Errorf("another repository's fleet run is listed: %+v, %v", all, err)
	}
	if err := h.call(editor.MethodFleetApply, editor.FleetApplyParams{ID: ref.ID, Mode: "edit"}, &applied); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	if !applied.Applied || len(rec.edits) != 1 || !strings.Contains(string(rec.edits[0]), "func Sub(a, b int) int { return a - b }") {
		t.Errorf("fleetApply = %+v, edits %s", applied, rec.edits)
	}
	rec.mu.Unlock()
	if got := strings.TrimSpace(testkit.Git(t, dir, "rev-parse", "autarch/add-sub")); got != strings.TrimSpace(testkit.Git(t, work, "rev-parse", "HEAD")) {
		t.Errorf("the fetched branch is at %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.go")); strings.Contains(string(b), "Sub") {
		t.Error("the server wrote the user's file itself; apply must go through the editor")
	}
}

// waitRun polls autarch/runs until it lists the run as ok says.
func (h *harness) waitRun(id string, ok func(editor.RunSummary) bool) editor.RunSummary {
	h.t.Helper()
	var got editor.RunSummary
	testkit.CheckFor(h.t, 15*time.Second, 50*time.Millisecond, func() error {
		var runs []editor.RunSummary
		if err := h.call(editor.MethodRuns, struct{}{}, &runs); err != nil {
			return err
		}
		for _, r := range runs {
			if r.ID == id {
				got = r
				if ok(r) {
					return nil
				}
				return fmt.Errorf("run %s is listed as %+v", id, r)
			}
		}
		return fmt.Errorf("run %s is not listed in %+v", id, runs)
	})
	return got
}

// waitFleetEvent waits for a fleet event of the run of the kind.
func (h *harness) waitFleetEvent(id, kind string) editor.FleetEvent {
	h.t.Helper()
	for {
		n := h.waitNote(editor.MethodFleetEvent)
		var ev editor.FleetEvent
		if err := json.Unmarshal(n.params, &ev); err != nil {
			h.t.Fatal(err)
		}
		if ev.ID == id && ev.Kind == kind {
			return ev
		}
	}
}

// TestFleetUnreachable: a fleet that cannot be reached hides none of the
// local runs (autarch/runs answers), and Run in Background says what
// failed and what to check.
func TestFleetUnreachable(t *testing.T) {
	h, dir := newHarness(t, wired), calcRepo(t)
	h.initFolder(dir, "calc", map[string]any{},
		editor.Settings{Model: editor.ModelSettings{Name: "scripted", BaseURL: "http://127.0.0.1:9/v1"}, Fleet: editor.FleetSettings{NatsURL: "nats://127.0.0.1:9"}})
	for range 2 { // the second answers at once: the failure is remembered for a while
		var runs []editor.RunSummary
		if err := h.call(editor.MethodRuns, struct{}{}, &runs); err != nil || len(runs) != 0 {
			t.Fatalf("runs = %+v, %v", runs, err)
		}
	}
	err := h.call(editor.MethodFleetSubmit, editor.FleetSubmitParams{Task: "Add Sub"}, nil)
	if err == nil || !strings.Contains(err.Error(), "reaching the fleet at nats://127.0.0.1:9") || !strings.Contains(err.Error(), "check autarch.fleet.natsUrl") {
		t.Errorf("Run in Background with an unreachable fleet: %v", err)
	}
}
