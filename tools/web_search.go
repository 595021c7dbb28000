package tools

import (
	"context"

	"github.com/autarch-dev/autarch/tools/websearch"
)

type webSearchParams struct {
	Reason     string   `json:"reason"`
	Query      string   `json:"query" jsonschema:"Search query"`
	MaxResults *float64 `json:"maxResults,omitempty" jsonschema:"Limit results (default 10, at most 20)"`
}

// webSearchDefault is how many results web_search gives when the model
// names no limit.
const webSearchDefault = 10

// newWebSearch is the coding-team catalog's web_search: {results: [{title,
// url, snippet}]}.
func newWebSearch(web *websearch.Cache) Tool {
	return DefineWith(Traits{Effect: EffectNetwork, Category: CategoryReadOnly}, "web_search", describe("web_search"), ReadOnly, func(ctx context.Context, s *Session, p webSearchParams) (Result, error) {
		max := webSearchDefault
		if p.MaxResults != nil {
			if *p.MaxResults < 1 {
				return errorResult("maxResults must be at least 1 (at most 20)"), nil
			}
			max = min(int(*p.MaxResults), websearch.MaxResults)
		}
		rs, msg := webSearch(ctx, s, web, p.Query, max)
		if msg != "" {
			return errorResult("web search failed: " + msg), nil
		}
		return jsonResult(map[string]any{"results": rs}, false), nil
	})
}

// NewWebSearch is web_search over provider (nil when provider is nil),
// for agents outside the role table (the coding team).
func NewWebSearch(provider WebSearcher) Tool {
	if provider == nil {
		return nil
	}
	return newWebSearch(websearch.NewCache(provider))
}
