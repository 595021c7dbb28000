package team

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

type semanticSearchParams struct {
	Reason     string `json:"reason"`
	Query      string `json:"query" jsonschema:"Natural language query"`
	Path       string `json:"path,omitempty" jsonschema:"Subdirectory to search (default: the whole repository)"`
	MaxResults *int   `json:"maxResults,omitempty" jsonschema:"Limit results (default: 10)"`
}

type semanticHit struct {
	File      string  `json:"file"`
	StartLine int     `json:"startLine"`
	EndLine   int     `json:"endLine"`
	Content   string  `json:"content"`
	Relevance float64 `json:"relevance"`
}

func newSemanticSearch() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectSearch, Category: tools.CategoryReadOnly}, "semantic_search", describe("semantic_search"), tools.ReadOnly, semanticSearch)
}

func semanticSearch(ctx context.Context, s *tools.Session, p semanticSearchParams) (tools.Result, error) {
	zero := map[string]any{"results": []semanticHit{}}
	if strings.TrimSpace(p.Query) == "" {
		return failure("invalid_query", "query is empty: describe what you are looking for", zero), nil
	}
	max, bad, ok := maxResults(p.MaxResults, tools.SearchDefaultResults, tools.SearchMaxResults, zero)
	if !ok {
		return bad, nil
	}
	req := tools.SearchRequest{Query: p.Query, MaxResults: max}
	dir, bad, ok := subDir(s, p.Path, zero)
	if !ok {
		return bad, nil
	}
	prefix := ""
	if dir != "" {
		// Weights multiply, so a directory is kept by filtering more hits.
		prefix, req.MaxResults = dir+"/", min(tools.SearchMaxResults, max*5)
	}
	searcher := s.Config().Search
	if searcher == nil {
		return failure("not_indexed", "the project has not been indexed yet: use search_code or find_files", zero), nil
	}
	hits, status, err := searcher.Search(ctx, req)
	if err != nil {
		return failure("search_error", "search failed: "+err.Error(), zero), nil
	}
	if !status.Indexed {
		return failure("not_indexed", "the project has not been indexed yet: use search_code or find_files", zero), nil
	}
	out := []semanticHit{}
	for _, h := range hits {
		if !strings.HasPrefix(h.FilePath, prefix) || len(out) == max {
			continue
		}
		out = append(out, semanticHit{File: h.FilePath, StartLine: h.StartLine, EndLine: h.EndLine, Content: s.Gate().RedactLines(h.Snippet), Relevance: h.AdjustedScore})
	}
	res := map[string]any{"results": out}
	if status.Partial {
		res["note"] = fmt.Sprintf(tools.PartialIndexNote, status.FilesDone, status.FilesTotal)
	}
	return tools.JSONResult(res, false), nil
}
