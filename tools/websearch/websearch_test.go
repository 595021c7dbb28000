package websearch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// The fake servers speak the providers' documented shapes: SearXNG's
// GET /search?q=…&format=json → {"query", "number_of_results", "results":
// [{"url", "title", "content", "engine", …}], …}; Brave's GET
// /res/v1/web/search?q=…&count=N with X-Subscription-Token →
// {"type": "search", "web": {"type": "search", "results": [{"title", "url",
// "description", …}]}}.

func fakeSearXNG(t *testing.T, hits *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/searx/search" || r.URL.Query().Get("format") != "json" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		q := r.URL.Query().Get("q")
		json.NewEncoder(w).Encode(map[string]any{
			"query": q, "number_of_results": 2,
			"results": []map[string]any{
				{"url": "https://go.dev/doc/effective_go", "title": "Effective Go", "content": "Tips for writing clear, idiomatic Go code about " + q, "engine": "duckduckgo", "engines": []string{"duckduckgo"}, "score": 1.5, "category": "general"},
				{"url": "https://pkg.go.dev/context", "title": "context package", "content": "Package context defines the Context type.", "engine": "google"},
			},
			"answers": []any{}, "suggestions": []string{"go context"}, "unresponsive_engines": []any{},
		})
	}))
}

func fakeBrave(t *testing.T, hits *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("X-Subscription-Token") != "brave-key" {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","status":401}}`))
			return
		}
		if r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("count") == "" || r.Header.Get("Accept") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"type":  "search",
			"query": map[string]any{"original": r.URL.Query().Get("q")},
			"web": map[string]any{"type": "search", "results": []map[string]any{
				{"title": "Go <strong>generics</strong> tutorial", "url": "https://go.dev/doc/tutorial/generics", "description": "Learn how to use <strong>generics</strong> &amp; type parameters.", "is_source_local": false},
				{"title": "Type parameters proposal", "url": "https://go.googlesource.com/proposal", "description": "The design of type parameters."},
				{"title": "Third", "url": "https://example.com/3", "description": "third"},
			}},
		})
	}))
}

func TestProviders(t *testing.T) {
	var sx, bv atomic.Int32
	searx, brv := fakeSearXNG(t, &sx), fakeBrave(t, &bv)
	defer searx.Close()
	defer brv.Close()
	tests := []struct {
		name    string
		s       Settings
		max     int
		want    []Result
		wantErr string
	}{
		{name: "searxng", s: Settings{Provider: SearXNG, URL: searx.URL + "/searx"}, want: []Result{
			{Title: "Effective Go", URL: "https://go.dev/doc/effective_go", Snippet: "Tips for writing clear, idiomatic Go code about go context"},
			{Title: "context package", URL: "https://pkg.go.dev/context", Snippet: "Package context defines the Context type."}}},
		{name: "searxng by url alone, limited", s: Settings{URL: searx.URL + "/searx/"}, max: 1, want: []Result{
			{Title: "Effective Go", URL: "https://go.dev/doc/effective_go", Snippet: "Tips for writing clear, idiomatic Go code about go context"}}},
		{name: "searxng without json format", s: Settings{URL: searx.URL}, wantErr: "add json to search.formats"},
		{name: "brave", s: Settings{Provider: Brave, URL: brv.URL + "/res/v1/web/search", Key: "brave-key"}, max: 2, want: []Result{
			{Title: "Go generics tutorial", URL: "https://go.dev/doc/tutorial/generics", Snippet: "Learn how to use generics & type parameters."},
			{Title: "Type parameters proposal", URL: "https://go.googlesource.com/proposal", Snippet: "The design of type parameters."}}},
		{name: "brave wrong key", s: Settings{Provider: Brave, URL: brv.URL + "/res/v1/web/search", Key: "nope"}, wantErr: "401 Unauthorized: {\"type\":\"ErrorResponse\""},
		{name: "brave without key", s: Settings{Provider: Brave}, wantErr: "needs an API key: set AUTARCH_WEB_SEARCH_KEY"},
		{name: "unknown provider", s: Settings{Provider: "google"}, wantErr: `provider "google": use searxng or brave`},
		{name: "not http", s: Settings{URL: "file:///etc/passwd"}, wantErr: "use an http:// or https:// address"},
		{name: "searxng without url", s: Settings{Provider: SearXNG}, wantErr: "needs url"},
		{name: "not json", s: Settings{URL: brv.URL + "/x", Provider: Brave, Key: "brave-key"}, wantErr: "400 Bad Request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.s, nil)
			var got []Result
			if err == nil {
				got, err = p.Search(context.Background(), "go context", tt.max)
			}
			if testkit.WantErr(t, err, tt.wantErr) {
				return
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Errorf("results\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

func TestSearXNGNotJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>a search page</html>"))
	}))
	defer srv.Close()
	p, _ := New(Settings{URL: srv.URL}, nil)
	if _, err := p.Search(context.Background(), "x", 0); err == nil || !strings.Contains(err.Error(), "not SearXNG's JSON") {
		t.Errorf("err = %v", err)
	}
}

func TestCacheAsksOnce(t *testing.T) {
	var hits atomic.Int32
	srv := fakeSearXNG(t, &hits)
	defer srv.Close()
	p, _ := New(Settings{URL: srv.URL + "/searx"}, nil)
	c := NewCache(p)
	for range 3 {
		if rs, err := c.Search(context.Background(), " generics ", 5); err != nil || len(rs) != 2 {
			t.Fatalf("%v %v", rs, err)
		}
	}
	c.Search(context.Background(), "generics", 5)
	if hits.Load() != 1 {
		t.Errorf("provider asked %d times, want 1", hits.Load())
	}
	c.Search(context.Background(), "other", 5)
	if hits.Load() != 2 {
		t.Errorf("a new query was not asked (%d requests)", hits.Load())
	}
	if NewCache(p).Search(context.Background(), "generics", 5); hits.Load() != 3 {
		t.Errorf("a new session's cache answered from another's")
	}
}

func TestResolve(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	user := Settings{Provider: Brave, Key: "user-key"}
	tests := []struct {
		name string
		src  Sources
		want Settings
		ok   bool
	}{
		{name: "nothing", src: Sources{Getenv: env(nil)}},
		{name: "environment wins", src: Sources{Getenv: env(map[string]string{EnvURL: "http://127.0.0.1:8888"}), User: user, Repository: Settings{URL: "http://repo"}},
			want: Settings{Provider: SearXNG, URL: "http://127.0.0.1:8888"}, ok: true},
		{name: "environment brave takes the user's brave key", src: Sources{Getenv: env(map[string]string{EnvProvider: Brave}), User: user},
			want: Settings{Provider: Brave, URL: BraveURL, Key: "user-key"}, ok: true},
		{name: "user file", src: Sources{Getenv: env(nil), User: user, Repository: Settings{URL: "http://repo"}},
			want: Settings{Provider: Brave, URL: BraveURL, Key: "user-key"}, ok: true},
		{name: "environment key over the user's", src: Sources{Getenv: env(map[string]string{EnvKey: "env-key"}), User: user},
			want: Settings{Provider: Brave, URL: BraveURL, Key: "env-key"}, ok: true},
		{name: "repository searxng", src: Sources{Getenv: env(map[string]string{EnvKey: "env-key"}), Repository: Settings{URL: "http://searx.team"}},
			want: Settings{Provider: SearXNG, URL: "http://searx.team"}, ok: true},
		{name: "repository brave at its endpoint gets the user's key", src: Sources{Getenv: env(map[string]string{EnvKey: "env-key"}), Repository: Settings{Provider: Brave}},
			want: Settings{Provider: Brave, URL: BraveURL, Key: "env-key"}, ok: true},
		{name: "repository brave elsewhere gets no key", src: Sources{Getenv: env(map[string]string{EnvKey: "env-key"}), Repository: Settings{Provider: Brave, URL: "http://attacker.example/collect", Key: "planted"}},
			want: Settings{Provider: Brave, URL: "http://attacker.example/collect"}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from, ok := Resolve(tt.src)
			if got != tt.want || ok != tt.ok || ok && from == "" {
				t.Errorf("Resolve = %+v, %q, %v; want %+v, %v", got, from, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestReadUser(t *testing.T) {
	dir := t.TempDir()
	if s, err := ReadUser(dir + "/absent.yaml"); err != nil || s.Configured() {
		t.Fatalf("absent file: %+v %v", s, err)
	}
	p := dir + "/config.yaml"
	writeFile(t, p, "other: 1\nweb_search:\n  provider: brave\n  key: k\n")
	if s, err := ReadUser(p); err != nil || s != (Settings{Provider: Brave, Key: "k"}) {
		t.Errorf("ReadUser = %+v, %v", s, err)
	}
	writeFile(t, p, "web_search: [1\n")
	if _, err := ReadUser(p); err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Errorf("broken file: err = %v", err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
