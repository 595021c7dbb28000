package team

import (
	"context"
	"log/slog"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/websearch"
)

// fakeWeb stands in for a hosted search API (off this machine).
type fakeWeb struct{ queries []string }

func (f *fakeWeb) Name() string { return "fake" }
func (f *fakeWeb) Search(_ context.Context, q string, max int) ([]websearch.Result, error) {
	f.queries = append(f.queries, q)
	return []websearch.Result{{Title: "Go docs", URL: "https://go.dev/doc", Snippet: "Documentation"}}[:min(1, max)], nil
}

// TestWebSearchOnlyWithAProvider: the job's web_search is the coding
// team's shape, and is offered only when a provider is configured.
func TestWebSearchOnlyWithAProvider(t *testing.T) {
	job := &fakeJob{id: "j", mode: Genius}
	without, _ := Registry(job, Deps{})
	if without.Has("web_search") || without.Has("web_code_search") {
		t.Errorf("web tools offered without a provider: %v", without.Names())
	}
	web := &fakeWeb{}
	reg, err := Registry(job, Deps{Tools: tools.Deps{Web: web}})
	if err != nil {
		t.Fatal(err)
	}
	if !reg.Has("web_search") || reg.Has("web_code_search") {
		t.Fatalf("names = %v", reg.Names())
	}
	h := newHarness(t, t.TempDir(), job)
	h.e = tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	got, res := h.call("web_search", map[string]any{"query": "go embed", "maxResults": 3})
	expect(t, got, res, "", map[string]any{"results": []map[string]any{{"title": "Go docs", "url": "https://go.dev/doc", "snippet": "Documentation"}}})
	if len(web.queries) != 1 || web.queries[0] != "go embed" {
		t.Errorf("queries = %q", web.queries)
	}
}
