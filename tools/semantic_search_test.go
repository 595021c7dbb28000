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

// TestSemanticSearchShapeWhileIndexing (000-12): the result is one JSON
// document whether or not indexing runs: the spec's array of hits, and
// while indexing runs an object with that array as its results and the
// progress note inside it.
func TestSemanticSearchShapeWhileIndexing(t *testing.T) {
	for _, st := range []SearchStatus{{Indexed: true}, {Indexed: true, Partial: true, FilesDone: 3, FilesTotal: 9}} {
		h := newHarness(t, "research", SessionConfig{Search: partialSearcher{st}})
		res := h.call("semantic_search", map[string]any{"query": "main"})
		var hits []map[string]any
		var note string
		if st.Partial {
			var doc struct {
				Results  []map[string]any `json:"results"`
				Note     string           `json:"note"`
				Indexing struct {
					FilesDone  int `json:"filesDone"`
					FilesTotal int `json:"filesTotal"`
				} `json:"indexing"`
			}
			if err := json.Unmarshal([]byte(res.Output), &doc); err != nil || doc.Indexing.FilesDone != 3 || doc.Indexing.FilesTotal != 9 {
				t.Fatalf("partial: not one JSON document with its progress (%v): %s", err, res.Output)
			}
			hits, note = doc.Results, doc.Note
		} else if err := json.Unmarshal([]byte(res.Output), &hits); err != nil {
			t.Fatalf("not a JSON array: %s", res.Output)
		}
		if len(hits) != 1 || hits[0]["file_path"] != "main.go" {
			t.Errorf("partial=%v: hits %v in %s", st.Partial, hits, res.Output)
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
