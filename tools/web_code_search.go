package tools

import (
	"context"
	_ "embed"
	"strings"
)

//go:embed web_code_search.md
var webCodeSearchDesc string

// WebSearcher is a web code search provider.
type WebSearcher interface {
	SearchCode(ctx context.Context, query string) (string, error)
}

type webCodeSearchParams struct {
	Reason string `json:"reason"`
	Query  string `json:"query" jsonschema:"A short query describing the code or documentation to search for, e.g. 'authentication patterns in NextJS applications'"`
}

func newWebCodeSearch(provider WebSearcher) Tool {
	return newTool("web_code_search", webCodeSearchDesc, ReadOnly, func(ctx context.Context, s *Session, p webCodeSearchParams) (Result, error) {
		if strings.TrimSpace(p.Query) == "" {
			return errorResult("There was an error searching the web for code: the query is empty"), nil
		}
		if provider == nil {
			return errorResult("There was an error searching the web for code: no web search provider is configured"), nil
		}
		text, err := provider.SearchCode(ctx, p.Query)
		if err != nil {
			return errorResult("There was an error searching the web for code: " + err.Error()), nil
		}
		return textResult(s.gate.RedactLines(text)), nil
	})
}
