package team

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

func readFixture(t *testing.T) *harness {
	t.Helper()
	r := newRepo(t, map[string]string{
		"README.md":       "# Demo\n",
		"src/auth.ts":     "export function login(user: string) {\n  return user;\n}\n",
		"src/util.ts":     "export function add(a: number, b: number) {\n  return a + b;\n}\n// login helper\n",
		"src/deep/x.go":   "package deep\n",
		"docs/guide.md":   "login docs\n",
		"big.txt":         strings.Repeat("line\n", 2500),
		"img.bin":         "\x00\x01\x02binary",
		".env":            "API_KEY=sk-live-0123456789abcdef0123456789abcdef\n",
		"noeol.txt":       "one\ntwo",
		".gitignore":      "ignored/\n",
		"ignored/keep.ts": "export function login() {}\n",
	})
	return newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})
}

func TestReadFile(t *testing.T) {
	h := readFixture(t)
	tests := []struct {
		name string
		args map[string]any
		code string
		want map[string]any
	}{
		{"whole file", map[string]any{"path": "src/auth.ts"}, "", map[string]any{"content": "export function login(user: string) {\n  return user;\n}\n", "lineCount": 3, "totalLines": 3, "truncated": false}},
		{"range", map[string]any{"path": "big.txt", "startLine": 100, "endLine": 200}, "", map[string]any{"lineCount": 101, "totalLines": 2500, "truncated": true}},
		{"capped at 2000 lines", map[string]any{"path": "big.txt"}, "", map[string]any{"lineCount": 2000, "truncated": true}},
		{"end past the end", map[string]any{"path": "src/auth.ts", "startLine": 2, "endLine": 50}, "", map[string]any{"content": "  return user;\n}\n", "lineCount": 2, "truncated": true}},
		{"no final newline", map[string]any{"path": "noeol.txt"}, "", map[string]any{"content": "one\ntwo", "lineCount": 2, "truncated": false}},
		{"missing", map[string]any{"path": "src/nope.ts"}, CodeFileNotFound, map[string]any{"content": ""}},
		{"binary", map[string]any{"path": "img.bin"}, CodeReadError, nil},
		{"secret", map[string]any{"path": ".env"}, CodeReadError, nil},
		{"directory", map[string]any{"path": "src"}, CodeReadError, nil},
		{"outside", map[string]any{"path": "../../etc/passwd"}, CodeReadError, nil},
		{"start past the end", map[string]any{"path": "src/auth.ts", "startLine": 9}, CodeReadError, nil},
		{"end before start", map[string]any{"path": "src/auth.ts", "startLine": 3, "endLine": 1}, CodeReadError, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := h.call("read_file", tt.args)
			expect(t, got, res, tt.code, tt.want)
			if strings.Contains(res.Output, "sk-live") {
				t.Errorf("secret leaked: %s", res.Output)
			}
		})
	}
}

func TestSearchListFind(t *testing.T) {
	h := readFixture(t)
	tests := []struct {
		name, tool string
		args       map[string]any
		code       string
		want       map[string]any
	}{
		{"search", "search_code", map[string]any{"query": "function login"}, "", map[string]any{
			"matches": []map[string]any{{"file": "src/auth.ts", "line": 1, "content": "export function login(user: string) {"}}, "totalMatches": 1, "truncated": false}},
		{"search: filePattern and path", "search_code", map[string]any{"query": "login", "filePattern": "*.ts", "path": "src"}, "", map[string]any{"totalMatches": 2}},
		{"search: filePattern on paths", "search_code", map[string]any{"query": "login", "filePattern": "docs/**"}, "", map[string]any{"totalMatches": 1}},
		{"search: maxResults truncates", "search_code", map[string]any{"query": "login", "maxResults": 1}, "", map[string]any{"totalMatches": 3, "truncated": true}},
		{"search: secrets are not searched", "search_code", map[string]any{"query": "API_KEY"}, "", map[string]any{"totalMatches": 0, "matches": []any{}}},
		{"search: bad regex", "search_code", map[string]any{"query": "func("}, "invalid_query", nil},
		{"search: bad maxResults", "search_code", map[string]any{"query": "x", "maxResults": 0}, "invalid_query", nil},
		{"search: outside", "search_code", map[string]any{"query": "x", "path": "../.."}, "invalid_path", nil},
		{"list root", "list_files", map[string]any{}, "", map[string]any{"totalCount": 7}},
		{"list: recursive, depth 1 under src", "list_files", map[string]any{"path": "src", "recursive": true, "maxDepth": 1}, "", map[string]any{
			"files": []map[string]any{{"path": "src/auth.ts", "type": "file", "size": 55}, {"path": "src/deep", "type": "directory"}, {"path": "src/util.ts", "type": "file", "size": 78}}, "totalCount": 3}},
		{"list: recursive with a pattern", "list_files", map[string]any{"recursive": true, "pattern": "*.go"}, "", map[string]any{
			"files": []map[string]any{{"path": "src/deep/x.go", "type": "file", "size": 13}}, "totalCount": 1}},
		{"list: missing", "list_files", map[string]any{"path": "nope"}, "directory_not_found", nil},
		{"list: bad pattern", "list_files", map[string]any{"pattern": "[x"}, "invalid_pattern", nil},
		{"find", "find_files", map[string]any{"pattern": "*.ts"}, "", map[string]any{"files": []string{"src/auth.ts", "src/util.ts"}, "totalCount": 2}},
		{"find: path", "find_files", map[string]any{"pattern": "*", "path": "src/deep"}, "", map[string]any{"files": []string{"src/deep/x.go"}, "totalCount": 1}},
		{"find: glob on paths", "find_files", map[string]any{"pattern": "src/**/*.go"}, "", map[string]any{"files": []string{"src/deep/x.go"}}},
		{"find: missing dir", "find_files", map[string]any{"pattern": "*", "path": "nope"}, "directory_not_found", nil},
		{"find: outside", "find_files", map[string]any{"pattern": "*", "path": "/etc"}, "invalid_path", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := h.call(tt.tool, tt.args)
			expect(t, got, res, tt.code, tt.want)
			if strings.Contains(res.Output, ".env") || strings.Contains(res.Output, "ignored/") {
				t.Errorf("sensitive or ignored file listed: %s", res.Output)
			}
		})
	}
}

// fakeSearcher is the index, off this machine's concern here: fixed hits.
type fakeSearcher struct{ indexed bool }

func (f fakeSearcher) Search(_ context.Context, req tools.SearchRequest) ([]tools.SearchHit, tools.SearchStatus, error) {
	hits := []tools.SearchHit{
		{FilePath: "docs/guide.md", StartLine: 1, EndLine: 1, Snippet: "login docs", Score: 0.9, AdjustedScore: 0.9},
		{FilePath: "src/auth.ts", StartLine: 1, EndLine: 3, Snippet: "export function login", Score: 0.8, AdjustedScore: 0.8},
		{FilePath: "src/util.ts", StartLine: 4, EndLine: 4, Snippet: "// login helper", Score: 0.5, AdjustedScore: 0.5},
	}
	return hits[:min(len(hits), req.MaxResults)], tools.SearchStatus{Indexed: f.indexed}, nil
}

func TestSemanticSearch(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	job := &fakeJob{id: "j", mode: Genius}
	reg, _ := Registry(job, Deps{})
	for _, tt := range []struct {
		name     string
		searcher tools.Searcher
		args     map[string]any
		code     string
		want     map[string]any
	}{
		{"results", fakeSearcher{true}, map[string]any{"query": "login", "maxResults": 1}, "", map[string]any{
			"results": []map[string]any{{"file": "docs/guide.md", "startLine": 1, "endLine": 1, "content": "login docs", "relevance": 0.9}}}},
		{"path", fakeSearcher{true}, map[string]any{"query": "login", "path": "src", "maxResults": 1}, "", map[string]any{
			"results": []map[string]any{{"file": "src/auth.ts", "startLine": 1, "endLine": 3, "content": "export function login", "relevance": 0.8}}}},
		{"path cleaned", fakeSearcher{true}, map[string]any{"query": "login", "path": "./src/", "maxResults": 1}, "", map[string]any{
			"results": []map[string]any{{"file": "src/auth.ts", "startLine": 1, "endLine": 3, "content": "export function login", "relevance": 0.8}}}},
		{"path of the root", fakeSearcher{true}, map[string]any{"query": "login", "path": ".", "maxResults": 1}, "", map[string]any{
			"results": []map[string]any{{"file": "docs/guide.md", "startLine": 1, "endLine": 1, "content": "login docs", "relevance": 0.9}}}},
		{"path outside", fakeSearcher{true}, map[string]any{"query": "login", "path": "../x"}, "invalid_path", map[string]any{"results": []any{}}},
		{"not indexed", fakeSearcher{false}, map[string]any{"query": "login"}, "not_indexed", map[string]any{"results": []any{}}},
		{"no index", nil, map[string]any{"query": "login"}, "not_indexed", nil},
		{"empty query", fakeSearcher{true}, map[string]any{"query": " "}, "invalid_query", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tools.NewSession(tools.SessionConfig{Root: r.wt, Mode: tools.ModeYolo, Search: tt.searcher})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			h := &harness{t: t, e: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), s: s, job: job}
			got, res := h.call("semantic_search", tt.args)
			expect(t, got, res, tt.code, tt.want)
		})
	}
}

func TestMetaTools(t *testing.T) {
	job := &fakeJob{id: "j", mode: Genius, approve: true, feedback: "go ahead, keep the API"}
	h := newHarness(t, t.TempDir(), job)
	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		code       string
		want       map[string]any
	}{
		{"analysis", "record_analysis", map[string]any{"findings": "login lacks a timeout", "files": []string{"src/auth.ts"}, "complexity": "low", "risks": []string{"sessions"}}, "",
			map[string]any{"recorded": true, "analysisId": "analysis-1"}},
		{"analysis: empty findings", "record_analysis", map[string]any{"findings": ""}, "invalid_analysis", map[string]any{"recorded": false}},
		{"analysis: bad complexity", "record_analysis", map[string]any{"findings": "x", "complexity": "huge"}, "invalid_analysis", nil},
		{"plan", "create_plan", map[string]any{"steps": []map[string]any{{"description": "add timeout", "tool": "apply_patch", "files": []string{"src/auth.ts"}}, {"description": "test", "tool": "run_tests"}}, "estimatedSteps": 4, "estimatedTokens": 20000}, "",
			map[string]any{"stored": true, "planId": "plan-1", "stepCount": 2}},
		{"plan: no steps", "create_plan", map[string]any{"steps": []any{}}, "invalid_plan", map[string]any{"stored": false}},
		{"plan: step without tool", "create_plan", map[string]any{"steps": []map[string]any{{"description": "x", "tool": ""}}}, "invalid_plan", nil},
		{"plan: negative estimate", "create_plan", map[string]any{"steps": []map[string]any{{"description": "x", "tool": "y"}}, "estimatedTokens": -1}, "invalid_plan", nil},
		{"review", "request_human_review", map[string]any{"reason": "the API change is risky", "severity": "high", "context": map[string]any{"files": []string{"src/auth.ts"}}}, "",
			map[string]any{"escalated": true, "escalationId": "esc-1", "humanResponse": map[string]any{"approved": true, "decision": "approved", "feedback": "go ahead, keep the API"}}},
		{"review: bad severity", "request_human_review", map[string]any{"reason": "x", "severity": "urgent"}, "invalid_request", map[string]any{"escalated": false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, res := h.call(tt.tool, tt.args)
			expect(t, got, res, tt.code, tt.want)
		})
	}
	if len(job.analyses) != 1 || job.analyses[0].Complexity != "low" || job.analyses[0].Risks[0] != "sessions" {
		t.Errorf("analyses = %+v", job.analyses)
	}
	if len(job.plans) != 1 || job.plans[0].EstimatedTokens != 20000 || job.plans[0].Steps[0].Files[0] != "src/auth.ts" {
		t.Errorf("plans = %+v", job.plans)
	}
	if len(job.escalation) != 1 || job.escalation[0].Severity != "high" || string(job.escalation[0].Context) != `{"files":["src/auth.ts"]}` {
		t.Errorf("escalations = %+v", job.escalation)
	}
	if _, res := h.call("request_human_review", map[string]any{"reason": "x", "context": "text"}); !res.Failed || !strings.Contains(res.Output, "context") {
		t.Errorf("a context that is not an object = %s", res.Output)
	}
}
