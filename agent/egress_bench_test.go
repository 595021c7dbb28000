package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// sink is a Model that keeps nothing: the benchmark measures the filter.
type sink struct{}

func (sink) Complete(context.Context, agent.Request, func(string)) (agent.Response, error) {
	return agent.Response{}, nil
}

// conversation is a realistic ~100k-token conversation (~400 KB): a
// system prompt, then read_file calls on real Go sources and their JSON
// results, with the assistant's short notes between them.
func conversation(b *testing.B, chars int) []agent.Message {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if err != nil || len(files) == 0 {
		b.Skip("no Go sources to build a conversation from")
	}
	msgs := []agent.Message{{Role: agent.RoleSystem, Content: strings.Repeat("You are a careful coding agent. Follow the project's rules.\n", 60)},
		{Role: agent.RoleUser, Content: "Find why the server's keep-alive connections leak and fix it."}}
	total := 0
	for i := 0; total < chars; i++ {
		f := files[i%len(files)]
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > 12000 {
			data = data[:12000]
		}
		id := fmt.Sprintf("call_%d", i)
		args, _ := json.Marshal(map[string]string{"path": filepath.Base(f), "reason": "read the handler code"})
		res, _ := json.Marshal(map[string]any{"content": string(data), "totalLines": strings.Count(string(data), "\n"), "path": filepath.Base(f)})
		msgs = append(msgs,
			agent.Message{Role: agent.RoleAssistant, Content: "Reading " + filepath.Base(f) + " next.", ToolCalls: []agent.ToolCall{{ID: id, Name: "read_file", Args: args}}},
			agent.Message{Role: agent.RoleTool, ToolCallID: id, Content: string(res)})
		total += len(res) + len(args) + 30
	}
	return msgs
}

// benchEgress is a filter over a realistic set of values: a .env of 20
// entries, a credentials file and the process environment.
func benchEgress(b *testing.B) *tools.Egress {
	dir := b.TempDir()
	var env strings.Builder
	for i := range 20 {
		fmt.Fprintf(&env, "SERVICE_%d_TOKEN=tok%02dQx7Lm2Wp9Zr4Kd8Vn3\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, ".env"), []byte(env.String()), 0o600)
	os.WriteFile(filepath.Join(dir, "credentials.json"), []byte(`{"client_secret": "cs_live_Pq7Wm2Zx8Ln4Vr6T", "refresh_token": "1//0gLm2Wp9Zr4Kd8Vn3Xq7"}`), 0o600)
	return tools.NewEgress(context.Background(), nil, tools.DefaultEgressSources(dir, ""))
}

// BenchmarkEgressModelRequest measures the egress gate's cost per model
// request on a 100k-token conversation: cold (every message filtered,
// the first request of a resumed conversation) and incremental (the
// conversation grew by one call and its result since the last request).
// It reports p50 and p99 in ms.
func BenchmarkEgressModelRequest(b *testing.B) {
	msgs := conversation(b, 400_000)
	e := benchEgress(b)
	b.Logf("conversation: %d messages, %d KB; %d secret values", len(msgs), size(msgs)/1024, e.Values())
	b.Run("cold", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			m := agent.FilterModel(sink{}, e)
			t := time.Now()
			m.Complete(context.Background(), agent.Request{Messages: msgs}, nil)
			ds = append(ds, time.Since(t))
		}
		report(b, ds)
	})
	b.Run("incremental", func(b *testing.B) {
		m := agent.FilterModel(sink{}, e)
		m.Complete(context.Background(), agent.Request{Messages: msgs[:len(msgs)-2]}, nil)
		var ds []time.Duration
		for b.Loop() {
			t := time.Now()
			m.Complete(context.Background(), agent.Request{Messages: msgs}, nil)
			ds = append(ds, time.Since(t))
			b.StopTimer()
			m = agent.FilterModel(sink{}, e)
			m.Complete(context.Background(), agent.Request{Messages: msgs[:len(msgs)-2]}, nil)
			b.StartTimer()
		}
		report(b, ds)
	})
}

func size(msgs []agent.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			n += len(c.Args)
		}
	}
	return n
}

func report(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*99/100)]), "p99-ms")
}
