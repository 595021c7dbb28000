package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools/websearch"
)

// WebSearcher is the web search provider the user configured (see
// tools/websearch); nil when none is, and then the web tools are offered
// to no agent.
type WebSearcher interface {
	Search(ctx context.Context, query string, max int) ([]websearch.Result, error)
	Name() string
}

// webCodeSearchResults is how many hits web_code_search shows.
const webCodeSearchResults = 8

type webCodeSearchParams struct {
	Reason string `json:"reason"`
	Query  string `json:"query" jsonschema:"A short query describing the code or documentation to search for, e.g. 'authentication patterns in NextJS applications'"`
}

func newWebCodeSearch(web *websearch.Cache) Tool {
	return DefineWith(Traits{Effect: EffectNetwork, Category: CategoryReadOnly}, "web_code_search", describe("web_code_search"), ReadOnly, func(ctx context.Context, s *Session, p webCodeSearchParams) (Result, error) {
		const prefix = "There was an error searching the web for code: "
		rs, msg := webSearch(ctx, s, web, p.Query, webCodeSearchResults)
		if msg != "" {
			return errorResult(prefix + msg), nil
		}
		if len(rs) == 0 {
			return textResult(fmt.Sprintf("No results for %q (%s). Try other words, or a library's name.", p.Query, web.Name())), nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Web results for %q (%s):\n", p.Query, web.Name())
		for i, r := range rs {
			fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
			if r.Snippet != "" {
				fmt.Fprintf(&b, "   %s\n", strings.ReplaceAll(r.Snippet, "\n", "\n   "))
			}
		}
		return textResult(b.String()), nil
	})
}

// webSearch runs a query through the secret gate and the session's cache;
// msg says what went wrong, for the model. Secrets in what comes back are
// redacted.
func webSearch(ctx context.Context, s *Session, web *websearch.Cache, query string, max int) (rs []websearch.Result, msg string) {
	query = strings.TrimSpace(query)
	if query == "" {
		return nil, "the query is empty: say what to search for"
	}
	if reason, blocked := s.gate.ContentBlocked([]byte(query)); blocked {
		return nil, "the query was not sent: it contains a secret (" + strings.TrimPrefix(reason, "File contains ") + "). Search without it."
	}
	if s.egress.Text(query) != query {
		return nil, "the query was not sent: it contains a secret value of this workspace or environment. Search without it."
	}
	rs, err := web.Search(ctx, query, max)
	if err != nil {
		return nil, err.Error()
	}
	out := make([]websearch.Result, len(rs))
	for i, r := range rs {
		out[i] = websearch.Result{Title: s.egress.Text(r.Title), URL: s.egress.Text(r.URL), Snippet: s.egress.Text(r.Snippet)}
	}
	return out, ""
}

// WithWeb offers a registry the web search over provider: web_code_search
// to every role, web_search too in the every-tool set (role ""). Nothing
// is added when provider is nil, or for a tool already there.
func WithWeb(reg *Registry, role string, provider WebSearcher) error {
	if provider == nil {
		return nil
	}
	c := websearch.NewCache(provider)
	ts := []Tool{newWebCodeSearch(c)}
	if role == "" {
		ts = append(ts, newWebSearch(c))
	}
	for _, t := range ts {
		if reg.Has(t.Name()) {
			continue
		}
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	return nil
}
