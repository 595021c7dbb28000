package team

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestToolContextReachesToolsHooksAndLogs: a job session's ToolContext is
// what a tool sees, what hooks get in their environment and what every
// log line of the call names.
func TestToolContextReachesToolsHooksAndLogs(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	var events []tools.ToolEvent
	tc := tools.ToolContext{JobID: "job-42", TraceID: "trace-7", Mode: "mechanic", RepoPath: r.wt,
		LogEvent: func(_ context.Context, e tools.ToolEvent) error { events = append(events, e); return nil }}
	var seen tools.ToolContext
	probe := tools.Define("probe", "probe", tools.ReadOnly, func(ctx context.Context, s *tools.Session, _ struct {
		Reason string `json:"reason"`
	}) (tools.Result, error) {
		seen = tools.ToolContextFrom(ctx)
		seen.Event(ctx, tools.ToolEvent{Tool: "probe", Kind: "ran"})
		return tools.JSONResult(map[string]any{"ok": true}, false), nil
	})
	hooks, err := tools.NewHooks(r.wt, []tools.Hook{{Event: tools.EventPostToolUse, Command: `echo "$AUTARCH_JOB $AUTARCH_TRACE $AUTARCH_MODE $AUTARCH_REPO"`}})
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := tools.NewRegistry(probe)
	var logs bytes.Buffer
	e := tools.NewEngine(reg, hooks, slog.New(slog.NewTextHandler(&logs, nil)))
	s, err := tools.NewSession(tools.SessionConfig{Root: r.wt, Mode: tools.ModeYolo, Context: tc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := e.Call(context.Background(), s, "probe", json.RawMessage(`{"reason":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	if seen.JobID != "job-42" || seen.TraceID != "trace-7" || seen.Mode != "mechanic" || seen.RepoPath != r.wt {
		t.Errorf("the tool saw %+v", seen)
	}
	if len(events) != 1 || events[0].Kind != "ran" {
		t.Errorf("events = %+v", events)
	}
	if !strings.Contains(res.Output, "job-42 trace-7 mechanic "+r.wt) {
		t.Errorf("the hook's environment: %s", res.Output)
	}
	// The mutating team tools report their outcome to the sink.
	reg, _ = Registry(&fakeJob{id: "job-42", mode: Mechanic}, Deps{})
	e = tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	events = nil
	e.Call(context.Background(), s, "apply_patch", json.RawMessage(`{"reason":"r","patch":"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n"}`))
	e.Call(context.Background(), s, "apply_patch", json.RawMessage(`{"reason":"r","patch":"nonsense"}`))
	if len(events) != 2 || events[0].Kind != "applied" || events[0].Data["linesChanged"] != 2.0 || events[1].Kind != "refused" || events[1].Data["code"] != CodeInvalidPatch {
		t.Errorf("events = %+v", events)
	}
	if line := logs.String(); !strings.Contains(line, "job=job-42") || !strings.Contains(line, "trace=trace-7") || !strings.Contains(line, "mode=mechanic") {
		t.Errorf("log line: %s", line)
	}
}
