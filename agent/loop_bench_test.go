package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// trajectory is an in-process Model replaying read/grep/edit steps, so
// the benchmark measures the loop, not a network.
type trajectory struct {
	steps []agent.ToolCall
	i     int
}

func (m *trajectory) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	if m.i >= len(m.steps) {
		return agent.Response{Message: agent.Message{Content: "done"}}, nil
	}
	c := m.steps[m.i]
	m.i++
	return agent.Response{Message: agent.Message{ToolCalls: []agent.ToolCall{c}}, Usage: agent.Usage{PromptTokens: 100, CompletionTokens: 10}}, nil
}

func trajectorySteps(n int) []agent.ToolCall {
	var out []agent.ToolCall
	for i := 0; len(out) < n; i++ {
		f := fmt.Sprintf("pkg%d/file.go", i%20)
		from, to := fmt.Sprintf("v%d", i), fmt.Sprintf("v%d", i+20) // the next edit of this file is step i+20
		out = append(out,
			agent.ToolCall{ID: "r", Name: "read_file", Args: json.RawMessage(fmt.Sprintf(`{"path":%q,"reason":"read"}`, f))},
			agent.ToolCall{ID: "g", Name: "grep", Args: json.RawMessage(`{"pattern":"func F","reason":"find"}`)},
			agent.ToolCall{ID: "e", Name: "edit_file", Args: mustMarshal(map[string]string{"path": f, "oldString": fmt.Sprintf("const V = %q", from), "newString": fmt.Sprintf("const V = %q", to), "reason": "bump"})},
		)
	}
	return out[:n]
}

// repoFor writes 20 packages whose versions the trajectory bumps.
func repoFor(b *testing.B, n int) string {
	dir := b.TempDir()
	for p := 0; p < 20; p++ {
		first := p // the first edit of package p is step p
		src := fmt.Sprintf("package pkg%d\n\nconst V = \"v%d\"\n\nfunc F%d() string { return V }\n%s", p, first, p, strings.Repeat("// filler line of a realistic file\n", 200))
		os.MkdirAll(filepath.Join(dir, fmt.Sprintf("pkg%d", p)), 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("pkg%d/file.go", p)), []byte(src), 0o644)
	}
	return dir
}

// BenchmarkLoop500 runs a 500-step trajectory and reports the loop's
// per-step overhead excluding tool execution (measured separately on the
// same calls).
func BenchmarkLoop500(b *testing.B) {
	const n = 500
	steps := trajectorySteps(n)
	var total, toolsOnly time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := repoFor(b, n)
		reg, _ := agent.Registry("pulsing", tools.Deps{})
		sess, _ := tools.NewSession(tools.SessionConfig{Root: dir, Role: "pulsing", Mode: tools.ModeYolo})
		engine := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
		a, err := agent.New(agent.Config{Role: "pulsing", Model: &trajectory{steps: steps}, ModelName: "bench", Engine: engine, Session: sess, MaxIterations: n + 10})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		out, err := a.RunTurn(context.Background(), "run the trajectory")
		total += time.Since(start)
		b.StopTimer()
		if err != nil || out.Iterations != n+1 {
			b.Fatalf("outcome %+v, %v", out, err)
		}
		if f := sess.FailuresSince(0); len(f) > 0 {
			b.Fatalf("%d tool calls failed, first: %+v", len(f), f[0])
		}
		sess.Close()
		// The same tool calls without the loop.
		dir = repoFor(b, n)
		sess, _ = tools.NewSession(tools.SessionConfig{Root: dir, Role: "pulsing", Mode: tools.ModeYolo})
		start = time.Now()
		for _, c := range steps {
			engine.Call(context.Background(), sess, c.Name, c.Args)
		}
		toolsOnly += time.Since(start)
		sess.Close()
		b.StartTimer()
	}
	runs := float64(b.N)
	b.ReportMetric(total.Seconds()/runs, "total-s/trajectory")
	b.ReportMetric(float64((total-toolsOnly).Microseconds())/runs/n, "overhead-µs/step")
}

func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
