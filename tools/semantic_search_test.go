package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// partialSearcher answers as the index does while indexing runs.
type partialSearcher struct{ status SearchStatus }

func (p partialSearcher) Search(ctx context.Context, req SearchRequest) ([]SearchHit, SearchStatus, error) {
	return []SearchHit{{FilePath: "main.go", StartLine: 1, EndLine: 3, Snippet: "package main", Score: 0.5, AdjustedScore: 0.5}}, p.status, nil
}

// TestSemanticSearchShapeWhileIndexing: the result is the spec's JSON array
// whether or not indexing runs; progress is a note after it (000-12).
func TestSemanticSearchShapeWhileIndexing(t *testing.T) {
	for _, st := range []SearchStatus{{Indexed: true}, {Indexed: true, Partial: true, FilesDone: 3, FilesTotal: 9}} {
		h := newHarness(t, "research", SessionConfig{Search: partialSearcher{st}})
		res := h.call("semantic_search", map[string]any{"query": "main"})
		arr, note, _ := strings.Cut(res.Output, "\n\n")
		var hits []map[string]any
		if err := json.Unmarshal([]byte(arr), &hits); err != nil || len(hits) != 1 || hits[0]["file_path"] != "main.go" {
			t.Errorf("partial=%v: not a JSON array of hits: %s", st.Partial, res.Output)
		}
		if st.Partial != strings.Contains(note, "indexing is in progress (3 of 9 files)") {
			t.Errorf("partial=%v: note %q", st.Partial, note)
		}
	}
}

// TestRoleDescriptions: the spec's per-role description additions (000-60).
func TestRoleDescriptions(t *testing.T) {
	tests := []struct{ role, tool, want string }{
		{"pulsing", "shell", "You are working in an isolated git worktree. All commands run in that context."},
		{"preflight", "shell", "You must NOT modify any files tracked by git."},
		{"research", "read_file", "File access is tracked for research provenance."},
	}
	for _, tt := range tests {
		reg, err := ForRole(tt.role, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		tool, ok := reg.Get(tt.tool)
		if !ok || !strings.Contains(tool.Description(), tt.want) {
			t.Errorf("%s %s description lacks %q", tt.role, tt.tool, tt.want)
		}
	}
	reg, _ := ForRole("preflight", Deps{})
	if tool, _ := reg.Get("shell"); strings.Contains(tool.Description(), "isolated git worktree") {
		t.Error("preflight's shell claims the pulsing worktree note")
	}
}
