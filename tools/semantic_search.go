package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Search limits.
const (
	SearchDefaultResults = 10
	SearchMaxResults     = 100
)

type semanticSearchParams struct {
	Reason         string   `json:"reason"`
	Query          string   `json:"query" jsonschema:"The natural language search query"`
	PatternWeights []string `json:"patternWeights,omitempty" jsonschema:"Pattern weights as 'glob:weight' strings, e.g. ['**/*.cs:1.5', 'docs/**:0.1']. Weight >1 boosts, <1 penalizes, 0 excludes."`
	MaxResults     *int     `json:"maxResults,omitempty" jsonschema:"Maximum number of results to return (default: 10)"`
}

func newSemanticSearch(role string) Tool {
	desc := describe("semantic_search")
	if role == "pulsing" {
		desc = strings.Replace(desc, "Search the codebase", "Search the worktree codebase", 1) +
			"\nNote: You are working in an isolated git worktree. Search results are from your working copy.\n"
	}
	return newTool("semantic_search", desc, ReadOnly, runSemanticSearch).declare(EffectSearch, CategoryReadOnly)
}

func runSemanticSearch(ctx context.Context, s *Session, p semanticSearchParams) (Result, error) {
	if strings.TrimSpace(p.Query) == "" {
		return errorResult("Query cannot be empty: describe what you are looking for"), nil
	}
	max := SearchDefaultResults
	if p.MaxResults != nil {
		max = *p.MaxResults
		if max < 1 || max > SearchMaxResults {
			return errorResult(fmt.Sprintf("maxResults must be between 1 and %d", SearchMaxResults)), nil
		}
	}
	weights, err := ParseWeights(p.PatternWeights)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	if s.cfg.Search == nil {
		return errorResult("Project has not been indexed yet."), nil
	}
	hits, status, err := s.cfg.Search.Search(ctx, SearchRequest{Query: p.Query, Weights: weights, MaxResults: max})
	if err != nil {
		return errorResult("Search failed: " + err.Error()), nil
	}
	if !status.Indexed {
		return errorResult("Project has not been indexed yet."), nil
	}
	for i := range hits {
		hits[i].Snippet = s.gate.RedactLines(hits[i].Snippet)
	}
	if hits == nil {
		hits = []SearchHit{}
	}
	if status.Partial {
		// Still one JSON document (000-12): while indexing runs, the
		// spec's array is the object's results, with the note beside it
		// (as the coding team's semantic_search answers).
		return jsonResult(map[string]any{"results": hits, "note": fmt.Sprintf(PartialIndexNote, status.FilesDone, status.FilesTotal),
			"indexing": map[string]int{"filesDone": status.FilesDone, "filesTotal": status.FilesTotal}}, false), nil
	}
	return jsonResult(hits, false), nil
}

// PartialIndexNote is the note of a search answered while indexing runs.
const PartialIndexNote = "Note: indexing is in progress (%d of %d files); these results come from what is indexed so far."

// ParseWeights parses patternWeights entries "glob:weight" (the last colon
// separates the weight; weight is a number ≥ 0; the glob is doublestar).
func ParseWeights(entries []string) ([]PatternWeight, error) {
	var out []PatternWeight
	for _, e := range entries {
		i := strings.LastIndex(e, ":")
		if i <= 0 || i == len(e)-1 {
			return nil, fmt.Errorf("invalid pattern weight %q: use 'glob:weight', e.g. '**/*_test.go:2' or 'docs/**:0.1'", e)
		}
		glob, ws := strings.TrimSpace(e[:i]), strings.TrimSpace(e[i+1:])
		w, err := strconv.ParseFloat(ws, 64)
		if err != nil || w < 0 || w != w {
			return nil, fmt.Errorf("invalid weight %q in %q: use a number ≥ 0 (0 excludes, <1 penalizes, >1 boosts)", ws, e)
		}
		if !doublestar.ValidatePattern(glob) {
			return nil, fmt.Errorf("invalid glob %q in %q", glob, e)
		}
		out = append(out, PatternWeight{Glob: glob, Weight: w})
	}
	return out, nil
}
