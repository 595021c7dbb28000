package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/editor"
)

func TestClientApproveAndMessages(t *testing.T) {
	tests := []struct {
		name   string
		answer any
		want   editor.Decision
	}{
		{"approve", map[string]string{"title": "Approve"}, editor.DecisionApprove},
		{"reject", map[string]string{"title": "Reject"}, editor.DecisionReject},
		{"always", map[string]string{"title": "Always allow"}, editor.DecisionAlwaysAllow},
		{"abort all", map[string]string{"title": "Abort all"}, editor.DecisionAbort},
		{"dismissed", nil, editor.DecisionDismissed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil)
			var asked json.RawMessage
			h.onCall = func(method string, params json.RawMessage) (any, error) {
				if method != "window/showMessageRequest" {
					t.Errorf("unexpected call %s", method)
				}
				asked = params
				return tt.answer, nil
			}
			h.initialize(nil)
			v, err := h.srv.Client().Approve(context.Background(), editor.Approval{Kind: "tool", Title: "Run `go test ./...`?", Reason: "check the build", AllowAlways: true, AllowAbort: true})
			if err != nil {
				t.Fatal(err)
			}
			if v.Decision != tt.want {
				t.Errorf("decision = %q, want %q", v.Decision, tt.want)
			}
			for _, s := range []string{"go test", "check the build", "Always allow", "Abort all"} {
				if !strings.Contains(string(asked), s) {
					t.Errorf("request %s lacks %q", asked, s)
				}
			}
		})
	}
}

func TestClientProgressAndCancel(t *testing.T) {
	h := newHarness(t, nil)
	h.onCall = func(method string, params json.RawMessage) (any, error) { return nil, nil }
	h.initialize(nil)
	ctx := context.Background()
	c := h.srv.Client()
	p, err := c.StartProgress(ctx, "Indexing", true)
	if err != nil {
		t.Fatal(err)
	}
	begin := h.waitNote("$/progress")
	if !strings.Contains(string(begin.params), `"kind":"begin"`) || !strings.Contains(string(begin.params), "Indexing") {
		t.Errorf("begin = %s", begin.params)
	}
	if err := p.Report(ctx, "10/100 files", 10); err != nil {
		t.Fatal(err)
	}
	if rep := h.waitNote("$/progress"); !strings.Contains(string(rep.params), `"percentage":10`) {
		t.Errorf("report = %s", rep.params)
	}
	var tok struct {
		Token string `json:"token"`
	}
	json.Unmarshal(begin.params, &tok)
	if err := h.client.Notify(ctx, "window/workDoneProgress/cancel", map[string]string{"token": tok.Token}); err != nil {
		t.Fatal(err)
	}
	<-p.Cancelled()
	if err := p.End(ctx, "cancelled"); err != nil {
		t.Fatal(err)
	}
	if end := h.waitNote("$/progress"); !strings.Contains(string(end.params), `"kind":"end"`) {
		t.Errorf("end = %s", end.params)
	}
}

func TestClientEditsDocumentsAndCustom(t *testing.T) {
	h := newHarness(t, nil)
	calls := map[string]json.RawMessage{}
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		calls[method] = params
		switch method {
		case "workspace/applyEdit":
			return map[string]any{"applied": true}, nil
		case "window/showDocument":
			return map[string]any{"success": true}, nil
		case "autarch/echo":
			return map[string]any{"params": params}, nil
		}
		return nil, nil
	}
	h.initialize(nil)
	ctx := context.Background()
	c := h.srv.Client()
	doc := uri.File("/tmp/project/a.go")
	edit := protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{doc: {{NewText: "x"}}}}
	if ok, err := c.ApplyEdit(ctx, "Apply suggestion", edit); err != nil || !ok {
		t.Fatalf("applyEdit = %v, %v", ok, err)
	}
	if !strings.Contains(string(calls["workspace/applyEdit"]), `"label":"Apply suggestion"`) {
		t.Errorf("applyEdit params = %s", calls["workspace/applyEdit"])
	}
	if ok, err := c.ShowDocument(ctx, protocol.ShowDocumentParams{URI: doc}); err != nil || !ok {
		t.Fatalf("showDocument = %v, %v", ok, err)
	}
	diag := protocol.Diagnostic{Message: protocol.String("missing error check"), Source: protocol.NewOptional("autarch")}
	if err := c.PublishDiagnostics(ctx, protocol.PublishDiagnosticsParams{URI: doc, Diagnostics: []protocol.Diagnostic{diag}}); err != nil {
		t.Fatal(err)
	}
	if n := h.waitNote("textDocument/publishDiagnostics"); !strings.Contains(string(n.params), "missing error check") {
		t.Errorf("diagnostics = %s", n.params)
	}
	if err := c.Notify(ctx, "autarch/ping", nil); err != nil {
		t.Fatal(err)
	}
	if n := h.waitNote("autarch/ping"); string(n.params) != "{}" {
		t.Errorf("nil params sent as %s, want {}", n.params)
	}
	var out struct {
		Params json.RawMessage `json:"params"`
	}
	if err := c.Call(ctx, "autarch/echo", nil, &out); err != nil || string(out.Params) != "{}" {
		t.Errorf("custom call params = %s (%v), want {}", out.Params, err)
	}
	if err := c.ShowMessage(ctx, editor.Info, "hello"); err != nil {
		t.Fatal(err)
	}
	if n := h.waitNote("window/showMessage"); !strings.Contains(string(n.params), "hello") {
		t.Errorf("showMessage = %s", n.params)
	}
}

func TestClientAskFallsBackToShowMessageRequest(t *testing.T) {
	h := newHarness(t, nil)
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		return map[string]string{"title": "Postgres"}, nil
	}
	h.initialize(nil)
	answers, err := h.srv.Client().Ask(context.Background(), []editor.Question{
		{Type: editor.SingleSelect, Prompt: "Which database?", Options: []string{"SQLite", "Postgres"}},
		{Type: editor.FreeText, Prompt: "Anything else?"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(answers) != 2 || answers[0].Values[0] != "Postgres" || !answers[1].Dismissed {
		t.Errorf("answers = %+v", answers)
	}
}

// BenchmarkRoundTrip measures a no-op custom request over a pipe, reporting
// p50/p99 latency and requests/s.
func BenchmarkRoundTrip(b *testing.B) {
	h := newHarness(&testing.T{}, func(s *Server) {
		s.RegisterRequest("test/noop", func(context.Context, json.RawMessage) (any, error) { return struct{}{}, nil })
	})
	h.initialize(nil)
	lat := make([]time.Duration, 0, b.N)
	start := time.Now()
	for b.Loop() {
		t0 := time.Now()
		if err := h.call("test/noop", struct{}{}, nil); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
}

// BenchmarkNotifications measures didChange notifications handled per second
// (the final request waits until all of them have been handled, in order).
func BenchmarkNotifications(b *testing.B) {
	h := newHarness(&testing.T{}, nil)
	h.initialize(nil)
	ctx := context.Background()
	params := map[string]any{
		"textDocument":   map[string]any{"uri": "file:///tmp/project/a.go", "version": 1},
		"contentChanges": []map[string]string{{"text": "package a"}},
	}
	start := time.Now()
	n := 0
	for b.Loop() {
		if err := h.client.Notify(ctx, "textDocument/didChange", params); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if err := h.call(editor.MethodStatus, struct{}{}, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "notes/s")
}
