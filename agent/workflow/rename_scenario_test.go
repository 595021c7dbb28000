package workflow_test

import (
	"context"
	"maps"
	"os/exec"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// TestCodeIntelligenceScenarios runs the scenarios that drive a real
// language server (testdata/lsp-scenarios, the format of
// testdata/scenarios): skipped, saying so, when gopls is not installed.
func TestCodeIntelligenceScenarios(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed (make gopls, or go install golang.org/x/tools/gopls@v0.23.0)")
	}
	testkit.RunScenarios(t, "testdata/lsp-scenarios/*.txt", runScenario)
}

// TestLangServersLiveForTheRun: a workflow's language servers are the
// run's: pulse 2 asks the gopls pulse 1 started (one start in all, and it
// knows pulse 1's new function), and the run's end shuts it down.
func TestLangServersLiveForTheRun(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed (make gopls, or go install golang.org/x/tools/gopls@v0.23.0)")
	}
	sc := testkit.LoadScenario(t, "testdata/lsp-servers-two-pulses.txt")
	var cfg scenarioConfig
	var want scenarioWant
	sc.Decode(t, &cfg, &want)
	h := newHarness(t, sc, cfg)
	var run *tools.LangServers
	starts := map[string]int{} // by pulse, after its find_references
	h.onEvent = func(ev workflow.Event) {
		if ev.Kind == "tool_result" && ev.Tool == "find_references" {
			run = h.engine.LangServersOf(ev.WorkflowID)
			if run != nil {
				starts[ev.PulseID] = run.Starts()
			}
		}
	}
	ctx := context.Background()
	wf, err := h.engine.Start(ctx, workflow.Task{Text: cfg.Task, Name: cfg.Name, Path: workflow.Path(cfg.Path)})
	must(t, err)
	wf, err = h.engine.Run(ctx, wf.ID)
	h.check(wf, err, want)
	if len(starts) != 2 || slices.ContainsFunc(slices.Collect(maps.Values(starts)), func(n int) bool { return n != 1 }) {
		t.Errorf("server starts after each pulse's call = %v, want 1 and 1 (one server for the run)", starts)
	}
	if h.engine.LangServersOf(wf.ID) != nil {
		t.Error("the run's language servers outlive it")
	}
	if run != nil && run.Running() != 0 {
		t.Errorf("%d language servers still run after the run ended", run.Running())
	}
	if !h.model.Received(`"file_path":"use.go","line":7`) {
		t.Error("pulse 2's references to Sub lack pulse 2's own caller in use.go")
	}
}
