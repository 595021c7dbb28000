package tools

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools/websearch"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// fakeSearXNG speaks a SearXNG instance's JSON API (GET /search?q=…&format=json)
// on 127.0.0.1 and counts the queries it receives.
func fakeSearXNG(t *testing.T) (*httptest.Server, *[]string) {
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.Query().Get("q"))
		if r.URL.Path != "/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"query": r.URL.Query().Get("q"), "number_of_results": 2, "results": []map[string]any{
			{"url": "https://pkg.go.dev/net/http", "title": "http package", "content": "Package http provides HTTP client and server implementations.", "engine": "duckduckgo"},
			{"url": "https://example.com/leak", "title": "a page quoting a key", "content": "token ghp_" + "Zq0xLm4Rt8Wv2Ky6Np3SaB3dE5fG7hJ9kL1m in a gist", "engine": "google"},
		}})
	}))
	t.Cleanup(srv.Close)
	return srv, &queries
}

func webHarness(t *testing.T, role string, url string) *harness {
	t.Helper()
	web, err := websearch.New(websearch.Settings{URL: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := ForRole(cmp.Or(role, "pulsing"), Deps{Web: web})
	if err != nil {
		t.Fatal(err)
	}
	if err := WithWeb(reg, role, web); err != nil { // web_code_search already there: left alone
		t.Fatal(err)
	}
	s, err := NewSession(SessionConfig{Root: fixture(t), Mode: ModeYolo, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{t: t, e: NewEngine(reg, nil, discard()), s: s}
}

func TestWebToolsOffered(t *testing.T) {
	srv, _ := fakeSearXNG(t)
	web, _ := websearch.New(websearch.Settings{URL: srv.URL}, nil)
	for _, role := range Roles {
		reg, err := ForRole(role, Deps{Web: web})
		if err != nil {
			t.Fatal(err)
		}
		if !reg.Has("web_code_search") || reg.Has("web_search") {
			t.Errorf("%s: %v, want web_code_search (web_search is the team catalog's)", role, reg.Names())
		}
		bare, _ := ForRole(role, Deps{})
		if bare.Has("web_code_search") {
			t.Errorf("%s offered web_code_search without a provider", role)
		}
	}
	all, _ := All(Deps{Web: web})
	if !all.Has("web_search") || !all.Has("web_code_search") {
		t.Errorf("every-tool set: %v", all.Names())
	}
	none, _ := All(Deps{})
	if err := WithWeb(none, "", nil); err != nil || none.Has("web_search") || none.Has("web_code_search") {
		t.Errorf("unconfigured every-tool set: %v %v", none.Names(), err)
	}
	if NewWebSearch(nil) != nil {
		t.Error("NewWebSearch(nil) made a tool")
	}
}

func TestWebSearchTools(t *testing.T) {
	srv, queries := fakeSearXNG(t)
	h := webHarness(t, "", srv.URL)
	secret := "ghp_" + "Zq0xLm4Rt8Wv2Ky6Np3SaB3dE5fG7hJ9kL1m"
	tests := []struct {
		name, tool string
		args       map[string]any
		want       []string
		not        []string
		failed     bool
	}{
		{name: "code search", tool: "web_code_search", args: map[string]any{"query": "go http client timeout"},
			want: []string{`Web results for "go http client timeout" (SearXNG at http://127.0.0.1`, "1. http package\n   https://pkg.go.dev/net/http\n   Package http provides", "2. a page quoting a key"}, not: []string{secret}},
		{name: "team web_search shape", tool: "web_search", args: map[string]any{"query": "go http client timeout", "maxResults": 1},
			want: []string{`{"results":[{"title":"http package","url":"https://pkg.go.dev/net/http","snippet":"Package http provides HTTP client and server implementations."}]}`}},
		{name: "secret in the query is refused", tool: "web_code_search", args: map[string]any{"query": "why is " + secret + " rejected"},
			want: []string{"There was an error searching the web for code: the query was not sent: it contains a secret"}, not: []string{secret}, failed: true},
		{name: "secret in web_search refused", tool: "web_search", args: map[string]any{"query": "AKIAIOSFODNN7EXAMPLE aws"},
			want: []string{"web search failed: the query was not sent: it contains a secret"}, failed: true},
		{name: "empty query", tool: "web_search", args: map[string]any{"query": "  "}, want: []string{"the query is empty"}, failed: true},
		{name: "bad maxResults", tool: "web_search", args: map[string]any{"query": "x", "maxResults": 0}, want: []string{"maxResults must be at least 1"}, failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.call(tt.tool, tt.args)
			for _, w := range tt.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, res.Output)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(res.Output, n) {
					t.Errorf("output contains %q:\n%s", n, res.Output)
				}
			}
			if res.Failed != tt.failed {
				t.Errorf("failed = %v", res.Failed)
			}
		})
	}
	for _, q := range *queries {
		if strings.Contains(q, secret) || strings.Contains(q, "AKIA") {
			t.Errorf("a query with a secret reached the provider: %q", q)
		}
	}
	before := len(*queries)
	h.call("web_code_search", map[string]any{"query": "go http client timeout"})
	if len(*queries) != before {
		t.Errorf("a repeated query was sent again (not cached for the session)")
	}
}

func TestWebSearchProviderDown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream engines timed out", http.StatusBadGateway)
	}))
	defer srv.Close()
	h := webHarness(t, "research", srv.URL)
	res := h.call("web_code_search", map[string]any{"query": "x"})
	if !res.Failed || !strings.Contains(res.Output, "502 Bad Gateway: upstream engines timed out") {
		t.Errorf("result = %+v", res)
	}
}

func TestConfigWebSearch(t *testing.T) {
	tests := []struct {
		name, yaml, wantErr string
		want                websearch.Settings
	}{
		{name: "searxng", yaml: "web_search:\n  provider: searxng\n  url: http://127.0.0.1:8888\n", want: websearch.Settings{Provider: "searxng", URL: "http://127.0.0.1:8888"}},
		{name: "brave by name", yaml: "web_search:\n  provider: brave\n", want: websearch.Settings{Provider: "brave"}},
		{name: "a key is refused", yaml: "web_search:\n  provider: brave\n  key: BSA-secret\n", wantErr: "line 3: key web_search.key: an API key must not be in the repository's .autarch/config.yaml"},
		{name: "unknown provider", yaml: "web_search:\n  provider: bing\n", wantErr: `line 2: key web_search: provider "bing": use searxng or brave`},
		{name: "searxng without url", yaml: "web_search:\n  provider: searxng\n", wantErr: "needs url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, err := ParseConfig([]byte(tt.yaml))
			if testkit.WantErr(t, err, tt.wantErr) {
				return
			}
			if c.WebSearch != tt.want {
				t.Errorf("WebSearch = %+v, want %+v", c.WebSearch, tt.want)
			}
		})
	}
}

func TestProjectWebSearchTrust(t *testing.T) {
	srv, _ := fakeSearXNG(t)
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	repo := Project{Settings: Config{WebSearch: websearch.Settings{URL: srv.URL}}}
	tests := []struct {
		name    string
		trust   trust.Status
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "untrusted repository provider is not used", trust: trust.New},
		{name: "trusted repository provider", trust: trust.Trusted, want: "SearXNG at " + srv.URL + " (from repository .autarch/config.yaml)"},
		{name: "environment over repository", trust: trust.New, env: map[string]string{websearch.EnvURL: "http://127.0.0.1:1"}, want: "SearXNG at http://127.0.0.1:1 (from environment"},
		{name: "brave without key", env: map[string]string{websearch.EnvProvider: "brave"}, wantErr: "needs an API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := repo
			p.Trust = tt.trust
			web, note, err := p.WebSearchProvider(env(tt.env), "")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || web != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (web == nil) != (tt.want == "") || !strings.Contains(note, tt.want) {
				t.Errorf("provider %v, note %q; want %q", web, note, tt.want)
			}
		})
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{ConfigFile: "web_search:\n  url: http://searx.example\n"})
	p, err := LoadProject(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Ignored, "web search provider http://searx.example") || !strings.Contains(p.Untrusted(), "web search provider http://searx.example") {
		t.Errorf("untrusted web_search not reported as ignored: %v", p.Ignored)
	}
}

// TestWebQueryEgress: a query carrying a secret value of the environment
// (as it is or reversed) is not sent, and says so.
func TestWebQueryEgress(t *testing.T) {
	const envTok = "envTok-8Hq2Mx7Lp4Wz9"
	t.Setenv("ACME_DEPLOY_TOKEN", envTok)
	srv, queries := fakeSearXNG(t)
	h := webHarness(t, "", srv.URL)
	for _, q := range []string{"why does " + envTok + " fail", "9zW4pL7xM2qH8-koTvne docs"} {
		for _, tool := range []string{"web_search", "web_code_search"} {
			res := h.call(tool, map[string]any{"query": q})
			if !res.Failed || !strings.Contains(res.Output, "the query was not sent: it contains a secret value") {
				t.Errorf("%s(%q) = %s, want a refusal", tool, q, res.Output)
			}
		}
	}
	if len(*queries) != 0 {
		t.Errorf("a query with a secret reached the provider: %q", *queries)
	}
}
