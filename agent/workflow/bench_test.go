package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// benchRepo makes a repository with n committed files in 100-file
// directories.
func benchRepo(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	testkit.Git(b, dir, "init", "-q", "-b", "main")
	for i := range n {
		p := filepath.Join(dir, "pkg"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".go")
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg%d\n\nfunc F%d() int { return %d }\n", i/100, i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	testkit.Git(b, dir, "add", ".")
	// No background gc (20k loose objects trigger one) racing the
	// benchmark and TempDir's cleanup.
	testkit.Git(b, dir, "-c", "user.name=U", "-c", "user.email=u@example.com", "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-m", "generated")
	return dir
}

// step is one scripted model answer calling one tool.
func step(name string, args map[string]any) string {
	call, _ := json.Marshal(map[string]any{"tool_calls": []map[string]any{{"name": name, "args": args}}})
	return string(call)
}

// benchEngine is an engine over dir answering from the given script steps
// (none: an engine whose model is never asked).
func benchEngine(b testing.TB, dir string, steps []string, events func(Event)) *Engine {
	b.Helper()
	url := "http://127.0.0.1:9" // no steps: nothing asks the model
	if len(steps) > 0 {
		var ar strings.Builder
		for i, s := range steps {
			fmt.Fprintf(&ar, "-- %06d.json --\n%s\n", i, s)
		}
		script, err := scripted.Parse([]byte(ar.String()))
		if err != nil {
			b.Fatal(err)
		}
		url, _ = scripted.Start(b, script)
	}
	repo, st := storetest.Open(b, dir)
	e, err := New(Config{Store: st, Repo: repo, Editor: &editor.Terminal{AutoApprove: true, Out: &strings.Builder{}},
		Model: openai.New(openai.Config{BaseURL: url, APIKey: "bench", MaxRetries: -1}), Settings: agent.Settings{Model: "scripted"},
		Mode: tools.ModeYolo, Events: events, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// quickWorkflow records a quick-path workflow with an approved scope, in
// the given stage.
func quickWorkflow(b testing.TB, e *Engine, name string, stage Stage) store.Workflow {
	ctx := context.Background()
	wf, err := e.Start(ctx, Task{Text: "bench " + name, Name: name, Path: PathQuick})
	if err != nil {
		b.Fatal(err)
	}
	sc := store.ScopeCard{WorkflowID: wf.ID, Title: "bench", Description: "bench", InScope: []string{"x"}, RecommendedPath: "quick"}
	if err := e.cfg.Store.AddScopeCard(ctx, &sc); err != nil {
		b.Fatal(err)
	}
	if err := e.cfg.Store.ResolveCard(ctx, store.KindScope, sc.ID, store.CardApproved, ""); err != nil {
		b.Fatal(err)
	}
	if err := e.cfg.Store.AdvanceStage(ctx, wf.ID, wf.Stage, string(stage)); err != nil {
		b.Fatal(err)
	}
	wf.Stage = string(stage)
	return wf
}

func reportMedian(b *testing.B, d []time.Duration, unit string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, unit)
}

// BenchmarkPreflightSkeleton: workflow branch and linked worktree
// creation, the preflight records, a preflight agent that completes at
// once, the tracked-file check and the artifact record, on a repository
// of 20k files.
func BenchmarkPreflightSkeleton(b *testing.B) {
	dir := benchRepo(b, 20000)
	done := step("complete_preflight", map[string]any{"reason": "bench", "summary": "ok", "setupCommands": []string{}, "buildSuccess": true, "baselinesRecorded": 0})
	steps := make([]string, b.N)
	for i := range steps {
		steps[i] = done
	}
	e := benchEngine(b, dir, steps, nil)
	ctx := context.Background()
	var times []time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		wf := quickWorkflow(b, e, "pf"+strconv.Itoa(i), StagePreflight)
		b.StartTimer()
		start := time.Now()
		if err := e.preflight(ctx, wf); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	reportMedian(b, times, "ms/median")
}

// BenchmarkPulseHandoff: from the accepted complete_pulse to the next
// pulse running (checkpoint commit, fast-forward, worktree reset, the next
// pulse branch), on a repository of 20k files. Each pulse writes one file.
func BenchmarkPulseHandoff(b *testing.B) {
	dir := benchRepo(b, 20000)
	n := b.N + 1
	var steps []string
	for i := range n {
		steps = append(steps,
			step("write_file", map[string]any{"reason": "bench", "path": fmt.Sprintf("bench/p%d.txt", i), "content": "x\n"}),
			step("complete_pulse", map[string]any{"reason": "bench", "summary": fmt.Sprintf("feat(bench): pulse %d", i), "filesChanged": []string{}}))
	}
	var mu sync.Mutex
	var completed time.Time
	var times []time.Duration
	e := benchEngine(b, dir, steps, func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case ev.Kind == "tool_result" && ev.Tool == "complete_pulse" && !ev.Failed:
			completed = time.Now()
		case ev.Kind == "pulse" && ev.Status == string(PulseRunning) && !completed.IsZero():
			times = append(times, time.Since(completed))
		}
	})
	ctx := context.Background()
	wf := quickWorkflow(b, e, "handoff", StagePulsing)
	if _, err := e.worktree(ctx, wf); err != nil {
		b.Fatal(err)
	}
	plan := store.Plan{WorkflowID: wf.ID, ApproachSummary: "bench"}
	for i := range n {
		plan.Pulses = append(plan.Pulses, store.Pulse{PlannedID: fmt.Sprintf("p%d", i), Seq: i, Title: "bench", EstimatedSize: "small"})
	}
	if err := e.cfg.Store.AddPlan(ctx, &plan); err != nil {
		b.Fatal(err)
	}
	if err := e.cfg.Store.ResolveCard(ctx, store.KindPlan, plan.ID, store.CardApproved, ""); err != nil {
		b.Fatal(err)
	}
	wf.Path = string(PathFull)
	if err := e.cfg.Store.UpdateWorkflow(ctx, &wf); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := e.pulse(ctx, wf); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	mu.Lock()
	defer mu.Unlock()
	if len(times) != b.N {
		b.Fatalf("%d handoffs measured, want %d", len(times), b.N)
	}
	reportMedian(b, times, "ms/median")
}
