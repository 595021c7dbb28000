package indexsearch

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

// TestSemanticSearchThroughEngine checks the spec's result shape, weights
// and the not-indexed error through the tool engine.
func TestSemanticSearchThroughEngine(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"auth/refresh.go":      "package auth\n\n// RefreshToken renews an expired access token.\nfunc RefreshToken() {}\n",
		"auth/refresh_test.go": "package auth\n\n// TestRefreshToken checks token renewal.\nfunc TestRefreshToken() {}\n",
		"secrets.env":          "TOKEN=abcdefghijklmnopqrstuvwxyz0123\n",
	}
	for rel, c := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), []byte(c), 0o644)
	}
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ix := index.New(root)
	reg, _ := tools.ForRole("research", tools.Deps{})
	engine := tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler))
	sess, err := tools.NewSession(tools.SessionConfig{Root: dir, Role: "research", Mode: tools.ModeYolo, Search: Searcher{Index: ix}})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	call := func(args string) tools.Result {
		res, err := engine.Call(context.Background(), sess, "semantic_search", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(`{"query":"refresh token","reason":"r"}`); res.Output != `{"error":"Project has not been indexed yet."}` {
		t.Errorf("before indexing: %s", res.Output)
	}
	if err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var hits []tools.SearchHit
	res := call(`{"query":"refresh expired token","patternWeights":["**/*_test.go:10"],"maxResults":5,"reason":"r"}`)
	if err := json.Unmarshal([]byte(res.Output), &hits); err != nil {
		t.Fatalf("%s: %v", res.Output, err)
	}
	if len(hits) != 2 || hits[0].FilePath != "auth/refresh_test.go" || math.Abs(hits[0].AdjustedScore-hits[0].Score*10) > 0.001 || hits[0].Snippet == "" || hits[0].StartLine != 1 {
		t.Errorf("hits = %s", res.Output)
	}
	var raw []map[string]any
	json.Unmarshal([]byte(res.Output), &raw)
	for _, k := range []string{"file_path", "start_line", "end_line", "snippet", "score", "adjusted_score"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("result lacks %s: %s", k, res.Output)
		}
	}
	res = call(`{"query":"refresh token","patternWeights":["auth/**:0"],"reason":"r"}`)
	if res.Output != "[]" {
		t.Errorf("weight 0 excludes: %s", res.Output)
	}
}
