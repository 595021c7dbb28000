package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// scenarioConfig is a scenario's config.json.
type scenarioConfig struct {
	Role          string  `json:"role"`
	Input         string  `json:"input"`
	Stream        bool    `json:"stream"`
	Envelope      bool    `json:"envelope"`
	MaxIterations int     `json:"maxIterations"`
	ContextWindow int     `json:"contextWindow"`
	Budget        float64 `json:"budget"`
	PromptPrice   float64 `json:"promptPricePerMillion"`
	CancelAfterMS int     `json:"cancelAfterMS"`
	Workflow      bool    `json:"workflow"`
	// Turns > 1 runs RunTurn again with Continue as input.
	Turns    int    `json:"turns"`
	Continue string `json:"continue"`
}

// scenarioWant is a scenario's want.json.
type scenarioWant struct {
	Outcome     string            `json:"outcome"`
	Tool        string            `json:"tool"`
	TextContain string            `json:"textContains"`
	Iterations  int               `json:"iterations"`
	Compactions int               `json:"compactions"`
	Files       map[string]string `json:"files"`
	// Reasons are tool call reasons that must appear as activity events, in order.
	Reasons []string `json:"reasons"`
	// Error is a substring of the error RunTurn must return.
	Error string `json:"error"`
	// PromptTokens is the total expected.
	PromptTokens int `json:"promptTokens"`
	// Nested are the reasons of tool calls a sub-agent made: their events
	// must name the dispatch_subagent call (and only theirs may).
	Nested []string `json:"nested"`
	// Outcomes are the outcomes of the tool results, in order (unchecked
	// when empty).
	Outcomes []string `json:"outcomes"`
}

func TestScenarios(t *testing.T) {
	testkit.RunScenarios(t, "testdata/scenarios/*.txt", runScenario)
}

func runScenario(t *testing.T, sc *testkit.Scenario) {
	var cfg scenarioConfig
	var want scenarioWant
	sc.Decode(t, &cfg, &want)
	dir := sc.NewRepo(t)
	url, srv := sc.StartModel(t)
	model := openai.New(openai.Config{BaseURL: url, APIKey: "test", Stream: cfg.Stream, MaxRetries: -1})
	var mu sync.Mutex
	var events []agent.Event
	sink := func(e agent.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	meter := agent.NewMeter(cfg.Budget)
	pricing := agent.Pricing{PromptPerMillion: cfg.PromptPrice}
	engine, sess := roleTools(t, cfg.Role, dir, cfg.Workflow, nil)
	a, err := agent.New(agent.Config{
		Role: cfg.Role, Model: model, ModelName: "scripted", Engine: engine, Session: sess,
		Events: sink, MaxIterations: cfg.MaxIterations, ContextWindow: cfg.ContextWindow, Meter: meter, Pricing: pricing, JSONEnvelope: cfg.Envelope,
		Pinned: func() string { return "Scope card: the scenario's scope." },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if cfg.CancelAfterMS > 0 {
		// The delay counts from the model's taking the request: on a busy
		// machine the turn may take longer than the delay to send it, and
		// the cancel would then land before the stream began.
		steps := srv.Remaining()
		go func() {
			testkit.Poll(time.Minute, 5*time.Millisecond, func() error {
				if srv.Remaining() == steps {
					return errors.New("the model has not been asked yet")
				}
				return nil
			})
			time.AfterFunc(time.Duration(cfg.CancelAfterMS)*time.Millisecond, cancel)
		}()
	}
	var out agent.Outcome
	var runErr error
	turns := max(cfg.Turns, 1)
	input := cfg.Input
	for i := 0; i < turns && runErr == nil; i++ {
		var o agent.Outcome
		o, runErr = a.RunTurn(ctx, input)
		o.Usage = o.Usage.Add(out.Usage)
		o.Iterations += out.Iterations
		out = o
		input = cfg.Continue
	}
	if want.Error != "" {
		if runErr == nil || !strings.Contains(runErr.Error(), want.Error) {
			t.Fatalf("RunTurn error = %v, want %q", runErr, want.Error)
		}
		return
	}
	if runErr != nil {
		t.Fatalf("RunTurn: %v", runErr)
	}
	if string(out.Kind) != want.Outcome {
		t.Errorf("outcome = %s (%s), want %s", out.Kind, out.Text, want.Outcome)
	}
	if want.Tool != "" && out.Tool != want.Tool {
		t.Errorf("terminal tool = %s, want %s", out.Tool, want.Tool)
	}
	if want.TextContain != "" && !strings.Contains(out.Text, want.TextContain) {
		t.Errorf("text %q lacks %q", out.Text, want.TextContain)
	}
	if want.Iterations != 0 && out.Iterations != want.Iterations {
		t.Errorf("iterations = %d, want %d", out.Iterations, want.Iterations)
	}
	if a.Compactions() != want.Compactions {
		t.Errorf("compactions = %d, want %d", a.Compactions(), want.Compactions)
	}
	if want.PromptTokens != 0 && out.Usage.PromptTokens != want.PromptTokens {
		t.Errorf("prompt tokens = %d, want %d", out.Usage.PromptTokens, want.PromptTokens)
	}
	for rel, contains := range want.Files {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil || !strings.Contains(string(b), contains) {
			t.Errorf("%s = %q (%v), want it to contain %q", rel, b, err, contains)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var reasons []string
	for _, e := range events {
		if e.Kind == "tool_call" {
			reasons = append(reasons, e.Reason)
		}
	}
	var outcomes []string
	for _, e := range events {
		if e.Kind == "tool_result" && e.Parent == "" {
			outcomes = append(outcomes, string(e.Outcome))
		}
	}
	if len(want.Outcomes) > 0 && strings.Join(outcomes, " ") != strings.Join(want.Outcomes, " ") {
		t.Errorf("tool result outcomes = %q, want %q", outcomes, want.Outcomes)
	}
	if !subsequence(want.Reasons, reasons) {
		t.Errorf("activity reasons = %q, want in order %q", reasons, want.Reasons)
	}
	checkNesting(t, events, want.Nested)
}

// checkNesting checks the sub-agents' calls are nested under their
// dispatch_subagent call (testkit.CheckNesting).
func checkNesting(t *testing.T, events []agent.Event, nested []string) {
	t.Helper()
	testkit.CheckNesting(t, events, func(e agent.Event) testkit.Call {
		return testkit.Call{Kind: string(e.Kind), Tool: e.Tool, ID: e.CallID, Parent: e.Parent, Subagent: e.Subagent, Reason: e.Reason}
	}, nested)
}

func subsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
