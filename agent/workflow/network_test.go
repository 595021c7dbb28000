package workflow_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/agent/workflow/store/storetest"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// flakyHarness is a scenario's harness whose model is reached through a
// flaky proxy; onEvent, when set, also hears the workflow's events.
func flakyHarness(t *testing.T, path string, retries int, firstByte time.Duration, onEvent func(*scripted.Flaky, workflow.Event)) (*harness, *scripted.Flaky, scenarioConfig, scenarioWant) {
	t.Helper()
	sc := testkit.LoadScenario(t, path)
	var cfg scenarioConfig
	var want scenarioWant
	sc.Decode(t, &cfg, &want)
	h := newHarness(t, sc, cfg)
	proxy := &scripted.Flaky{Next: h.model, RetryAfter: 20 * time.Millisecond}
	hs := httptest.NewServer(proxy)
	t.Cleanup(hs.Close)
	// Small backoffs: the faults cost milliseconds. The first-byte
	// timeout is short only where a test injects slow answers; elsewhere
	// a busy machine's slow pass must not count as one more fault.
	model := openai.New(openai.Config{BaseURL: hs.URL + "/v1", APIKey: "test", Stream: true, MaxRetries: retries,
		RetryDelay: time.Millisecond, MaxRetryDelay: 10 * time.Millisecond, FirstByteTimeout: firstByte})
	var err error
	h.engine, err = workflow.New(workflow.Config{Store: h.store, Repo: h.repo, Editor: h.ed, Model: model,
		Settings: agent.Settings{Model: "scripted", ContextWindow: 128000}, Mode: tools.ModeYolo, StopPoll: 10 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Events: func(ev workflow.Event) {
			h.mu.Lock()
			h.events = append(h.events, ev)
			h.mu.Unlock()
			if onEvent != nil {
				onEvent(proxy, ev)
			}
		}})
	must(t, err)
	return h, proxy, cfg, want
}

func (h *harness) eventTexts(kind string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, ev := range h.events {
		if string(ev.Kind) == kind {
			out = append(out, ev.Text)
		}
	}
	return out
}

// Behind a proxy that spoils every other model answer, the whole full-path
// workflow completes exactly as on a clean network: every answer is
// retried whole, no tool call runs twice, and each retry is activity.
func TestWorkflowSurvivesAFlakyNetwork(t *testing.T) {
	const p = scripted.Pass
	for _, tc := range []struct {
		fault   scripted.Fault
		pattern []scripted.Fault
		cause   string
	}{
		{scripted.Cut, []scripted.Fault{p, scripted.Cut}, "without a finish chunk"},
		{scripted.Drop, []scripted.Fault{p, scripted.Drop}, "model stream cut after"},
		// Two in a row: net/http itself replays a request with an
		// Idempotency-Key once when a reused connection is reset.
		{scripted.Reset, []scripted.Fault{p, scripted.Reset, scripted.Reset}, "connection reset"},
		{scripted.Status500, []scripted.Fault{p, scripted.Status500}, "answered 500 Internal Server Error"},
		{scripted.Status429, []scripted.Fault{p, scripted.Status429}, "answered 429 Too Many Requests"},
		// Each slow answer costs the first-byte timeout: fewer of them.
		{scripted.Slow, []scripted.Fault{p, p, p, scripted.Slow}, "no answer within 250ms"},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			firstByte := 10 * time.Second
			if tc.fault == scripted.Slow {
				firstByte = 250 * time.Millisecond
			}
			h, proxy, cfg, want := flakyHarness(t, "testdata/scenarios/full-path.txt", 3, firstByte, nil)
			proxy.SetPattern(tc.pattern...)
			ctx := context.Background()
			wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
			must(t, err)
			wf, err = h.engine.Run(ctx, wf.ID)
			h.check(wf, err, want)
			testkit.CheckModel(t, h.model)
			retries := h.eventTexts("retry")
			if proxy.Injected()[tc.fault] < 5 || len(retries) == 0 {
				t.Fatalf("%v faults injected, %d retries reported", proxy.Injected(), len(retries))
			}
			if !strings.Contains(retries[0], tc.cause) || !strings.Contains(retries[0], "retrying 1/3 in") {
				t.Errorf("retry activity %q, want %q and \"retrying 1/3 in\"", retries[0], tc.cause)
			}
			// Each scripted tool call ran exactly once.
			if got, want := len(h.eventTexts("tool_call")), scriptedToolCalls(t, "testdata/scenarios/full-path.txt"); got != want {
				t.Errorf("%d tool calls ran, want %d: one per scripted call", got, want)
			}
		})
	}
}

// scriptedToolCalls counts the tool calls a script's steps make.
func scriptedToolCalls(t *testing.T, path string) int {
	s := testkit.LoadScenario(t, path).Script(t, "", "")
	n := 0
	for _, st := range s.Steps {
		n += len(st.ToolCalls)
	}
	return n
}

// When the network fails through every retry mid-pulse, the workflow is
// recorded as Failed with what happened on the wire (not as Stopped, not
// as interrupted, not even after a restart's recovery), and resuming it
// continues from the last durable point to completion.
func TestNetworkFailureFailsTheRunAndResumeFinishesIt(t *testing.T) {
	var once sync.Once
	h, proxy, cfg, _ := flakyHarness(t, "testdata/scenarios/quick-path.txt", 2, 10*time.Second, func(p *scripted.Flaky, ev workflow.Event) {
		if ev.Kind == "pulse" && ev.Status == string(workflow.PulseRunning) {
			once.Do(func() { p.SetPattern(scripted.Reset) }) // from the pulse's first model call on, every connection is reset
		}
	})
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	var netErr *openai.NetworkError
	if !errors.As(err, &netErr) || !strings.Contains(err.Error(), "connection reset") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Fatalf("run error = %v, want the network fault named", err)
	}
	if wf.Status != store.WorkflowFailed || !strings.Contains(wf.StatusReason, "connection reset") || wf.Stage != string(workflow.StagePulsing) {
		t.Fatalf("workflow %s %s (%s), want Failed in pulsing with the cause", wf.Stage, wf.Status, wf.StatusReason)
	}
	// A restart's recovery keeps the cause.
	must(t, h.engine.Recover(ctx))
	wf, err = h.store.Workflow(ctx, wf.ID)
	must(t, err)
	if wf.Status != store.WorkflowFailed || strings.Contains(wf.StatusReason, "interrupted") {
		t.Fatalf("after recovery: %s (%s), want still Failed with its cause", wf.Status, wf.StatusReason)
	}
	proxy.SetPattern(scripted.Pass)
	wf, err = h.engine.Resume(ctx, wf.ID)
	if err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume: %v, workflow %s %s (%s)", err, wf.Stage, wf.Status, wf.StatusReason)
	}
	if got := commitSubjects(t, h.dir, wf.BaseCommit, "autarch/"+wf.Name); strings.Join(got, ",") != "fix(calc): saturate Add on overflow" {
		t.Errorf("workflow branch commits = %q", got)
	}
}

// A refusal of the provider (400) fails the run at once, recorded as
// Failed with the provider's message; the scope card approved before it
// is not asked again on resume.
func TestProviderRefusalIsRecordedAsTheCause(t *testing.T) {
	var once sync.Once
	h, proxy, cfg, _ := flakyHarness(t, "testdata/scenarios/quick-path.txt", 3, 10*time.Second, func(p *scripted.Flaky, ev workflow.Event) {
		if ev.Kind == "stage" && ev.Stage == string(workflow.StagePreflight) {
			once.Do(func() { p.SetPattern(scripted.Status400) })
		}
	})
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	var api *openai.APIError
	if !errors.As(err, &api) || api.StatusCode != 400 || proxy.Injected()[scripted.Status400] != 1 {
		t.Fatalf("run error = %v (injected %v), want one 400, not retried", err, proxy.Injected())
	}
	for _, want := range []string{"400 Bad Request: flaky proxy: the model 'scripted' does not exist", "Check the model name"} {
		if !strings.Contains(wf.StatusReason, want) {
			t.Errorf("status reason %q lacks %q", wf.StatusReason, want)
		}
	}
	if wf.Status != store.WorkflowFailed {
		t.Fatalf("workflow %s (%s), want Failed", wf.Status, wf.StatusReason)
	}
	halts := h.eventTexts("halt")
	if len(halts) == 0 || !strings.Contains(halts[len(halts)-1], "400 Bad Request") {
		t.Errorf("halt events %q, want the failure announced with its cause", halts)
	}
	proxy.SetPattern(scripted.Pass)
	if wf, err = h.engine.Resume(ctx, wf.ID); err != nil || wf.Status != store.WorkflowCompleted {
		t.Fatalf("resume: %v, workflow %s %s (%s)", err, wf.Stage, wf.Status, wf.StatusReason)
	}
}

// namelessModel is a model whose settings name no model.
type namelessModel struct{ agent.Model }

func (namelessModel) DefaultModelName() string { return "" }

// No workflow starts without a model; the refusal says how to set one.
func TestNoModelRefusesToStart(t *testing.T) {
	ctx := context.Background()
	repo, st := storetest.Open(t, testkit.NewRepo(t, map[string]string{"a.txt": "a\n"}))
	start := func(s agent.Settings) error {
		e, err := workflow.New(workflow.Config{Store: st, Repo: repo, Editor: &testkit.Editor{T: t, NoChat: true}, Model: namelessModel{}, Settings: s})
		must(t, err)
		_, err = e.Start(ctx, workflow.Task{Text: "Add Sub"})
		return err
	}
	err := start(agent.Settings{})
	if !errors.Is(err, workflow.ErrNoModel) || !strings.Contains(err.Error(), "autarch.model.name") || !strings.Contains(err.Error(), "AUTARCH_MODEL") {
		t.Errorf("start = %v, want ErrNoModel with the configuration steps", err)
	}
	if wfs, _ := st.Workflows(ctx); len(wfs) != 0 {
		t.Errorf("%d workflows recorded, want none", len(wfs))
	}
	// A name per role is enough.
	roles := map[string]string{}
	for _, r := range []string{agent.Scoping, agent.Research, agent.Plan, agent.Preflight, agent.Pulsing, agent.Review} {
		roles[r] = "m"
	}
	if err := start(agent.Settings{RoleModels: roles}); err != nil {
		t.Errorf("start with a model per role: %v", err)
	}
}
