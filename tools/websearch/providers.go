package websearch

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// searxng is a SearXNG instance's JSON API: GET /search?q=…&format=json
// answers {"results": [{"url", "title", "content", …}], …}. The instance
// must allow the json format (search.formats in its settings.yml).
type searxng struct {
	base   *url.URL
	client *http.Client
}

func (p *searxng) Name() string { return "SearXNG at " + p.base.Redacted() }

func (p *searxng) Search(ctx context.Context, query string, max int) ([]Result, error) {
	u := *p.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	u.RawQuery = url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	body, err := get(p.client, req, p.Name())
	if err != nil {
		if strings.Contains(err.Error(), "403 Forbidden") {
			err = fmt.Errorf("%w (does the instance allow format=json? add json to search.formats in its settings.yml)", err)
		}
		return nil, err
	}
	var ans struct {
		Results []struct {
			URL     string `json:"url"`
			Title   string `json:"title"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("%s: the answer is not SearXNG's JSON: %w", p.Name(), err)
	}
	out := make([]Result, 0, len(ans.Results))
	for _, r := range ans.Results {
		out = append(out, Result{Title: r.Title, URL: r.URL, Snippet: strings.TrimSpace(r.Content)})
	}
	return limit(out, max), nil
}

// brave is the Brave Search API: GET …/res/v1/web/search?q=…&count=N with
// the X-Subscription-Token header answers {"web": {"results": [{"title",
// "url", "description"}]}} (descriptions carry <strong> highlights).
type brave struct {
	endpoint *url.URL
	key      string
	client   *http.Client
}

func (p *brave) Name() string { return "Brave Search API at " + p.endpoint.Redacted() }

func (p *brave) Search(ctx context.Context, query string, max int) ([]Result, error) {
	if max <= 0 || max > MaxResults {
		max = MaxResults
	}
	u := *p.endpoint
	u.RawQuery = url.Values{"q": {query}, "count": {strconv.Itoa(max)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", p.key)
	body, err := get(p.client, req, p.Name())
	if err != nil {
		return nil, err
	}
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("%s: the answer is not the Brave Search API's JSON: %w", p.Name(), err)
	}
	out := make([]Result, 0, len(ans.Web.Results))
	for _, r := range ans.Web.Results {
		out = append(out, Result{Title: plain(r.Title), URL: r.URL, Snippet: plain(r.Description)})
	}
	return limit(out, max), nil
}

var tags = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

// plain drops HTML tags and entities from a snippet.
func plain(s string) string {
	return strings.TrimSpace(html.UnescapeString(tags().ReplaceAllString(s, "")))
}
