// Package websearch is the web search behind the web_search and
// web_code_search tools: a provider the user configures (a SearXNG
// instance's JSON API, or the hosted Brave Search API with its key),
// results cached for the agent session that asked.
package websearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Provider names.
const (
	SearXNG = "searxng"
	Brave   = "brave"
)

// BraveURL is the Brave Search API's web search endpoint.
const BraveURL = "https://api.search.brave.com/res/v1/web/search"

// MaxResults bounds the results of one search.
const MaxResults = 20

// requestTimeout bounds one request to a provider.
const requestTimeout = 20 * time.Second

// maxBody bounds a provider's answer.
const maxBody = 4 << 20

// Result is one search hit.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Provider searches the web.
type Provider interface {
	// Search returns at most max results for query (max ≤ 0: the provider's default).
	Search(ctx context.Context, query string, max int) ([]Result, error)
	// Name names the provider and where it is, for messages.
	Name() string
}

// New makes the provider s describes.
func New(s Settings, client *http.Client) (Provider, error) {
	if client == nil {
		client = &http.Client{Timeout: requestTimeout}
	}
	s = s.normalized()
	switch s.Provider {
	case SearXNG:
		if s.URL == "" {
			return nil, errors.New("web search provider searxng needs url: the instance's address, e.g. http://127.0.0.1:8888")
		}
		u, err := parseBase(s.URL)
		if err != nil {
			return nil, err
		}
		return &searxng{base: u, client: client}, nil
	case Brave:
		if s.Key == "" {
			return nil, fmt.Errorf("web search provider brave needs an API key: set %s or web_search.key in your user config (%s)", EnvKey, userFileHint())
		}
		u, err := parseBase(s.URL)
		if err != nil {
			return nil, err
		}
		return &brave{endpoint: u, key: s.Key, client: client}, nil
	}
	return nil, fmt.Errorf("web search provider %q: use %s or %s", s.Provider, SearXNG, Brave)
}

func parseBase(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("web search url %q: use an http:// or https:// address", raw)
	}
	return u, nil
}

// get sends req and decodes nothing: it returns the body of a 200 answer,
// or an error saying what the provider answered.
func get(client *http.Client, req *http.Request, who string) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("%s: reading the answer: %w", who, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(body))
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		return nil, fmt.Errorf("%s answered %s: %s", who, resp.Status, msg)
	}
	return body, nil
}

// Cache remembers a provider's answers: one per agent session, so that the
// same query asked twice costs one request.
type Cache struct {
	p  Provider
	mu sync.Mutex
	m  map[string][]Result
}

// NewCache caches p's answers.
func NewCache(p Provider) *Cache { return &Cache{p: p, m: map[string][]Result{}} }

// Name is the provider's.
func (c *Cache) Name() string { return c.p.Name() }

// Search answers from the cache, or asks the provider and remembers.
func (c *Cache) Search(ctx context.Context, query string, max int) ([]Result, error) {
	key := fmt.Sprintf("%d\x00%s", max, strings.TrimSpace(query))
	c.mu.Lock()
	r, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := c.p.Search(ctx, query, max)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.m[key] = r
	c.mu.Unlock()
	return r, nil
}

// limit cuts results to max (≤ 0: MaxResults).
func limit(rs []Result, max int) []Result {
	if max <= 0 || max > MaxResults {
		max = MaxResults
	}
	if len(rs) > max {
		rs = rs[:max]
	}
	return rs
}
