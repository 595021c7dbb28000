// Package indexsearch adapts an index.Index to tools.Searcher, so that the
// index package stays free of the tools package.
package indexsearch

import (
	"context"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
)

// SnippetLines caps a result's snippet.
const SnippetLines = 30

// Searcher serves semantic_search from an index.
type Searcher struct {
	Index *index.Index
	// Ready reports whether the project has been indexed at least once.
	Ready func() bool
}

// Search implements tools.Searcher.
func (s Searcher) Search(ctx context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	st := s.Index.Stats()
	status := tools.SearchStatus{Indexed: st.Files > 0 || (s.Ready != nil && s.Ready()), Partial: st.Building, FilesDone: st.Done, FilesTotal: st.Total}
	if !status.Indexed {
		return nil, status, nil
	}
	q := index.Query{Text: req.Query, Max: req.MaxResults}
	for _, w := range req.Weights {
		q.Weights = append(q.Weights, index.Weight{Glob: w.Glob, Weight: w.Weight})
	}
	hits, err := s.Index.Search(ctx, q)
	if err != nil {
		return nil, status, err
	}
	s.Index.Snippets(hits, SnippetLines)
	out := make([]tools.SearchHit, 0, len(hits))
	for _, h := range hits {
		out = append(out, tools.SearchHit{FilePath: h.Path, StartLine: h.Start, EndLine: h.End, Snippet: h.Snippet, Score: h.Score, AdjustedScore: h.AdjustedScore})
	}
	return out, status, nil
}
