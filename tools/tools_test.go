package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture is a workspace with code, ignored files and planted secrets.
func fixture(t *testing.T) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main.go":            "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"pkg/util.go":        "package pkg\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n",
		"pkg/util_test.go":   "package pkg\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\n",
		"docs/guide.md":      "# Guide\nHello world\n",
		".gitignore":         "build/\n*.log\n",
		"build/out.txt":      "hello from build\n",
		"debug.log":          "hello log\n",
		".env":               "API_TOKEN=abcdefghijklmnopqrstuvwxyz\n",
		"config/settings.go": "package config\n\nconst key = \"AKIAIOSFODNN7EXAMPLE\"\n",
		"notes.txt":          "password = \"hunter2hunter2hunter2\"\nhello plain line\n",
	})
	return dir
}

type harness struct {
	t   *testing.T
	e   *Engine
	s   *Session
	dir string
}

func newHarness(t *testing.T, role string, cfg SessionConfig) *harness {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = fixture(t)
	}
	if cfg.Mode == "" {
		cfg.Mode = ModeYolo
	}
	cfg.Role = role
	reg, err := ForRole(role, Deps{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{t: t, e: NewEngine(reg, nil, slog.New(slog.DiscardHandler)), s: s, dir: cfg.Root}
}

func (h *harness) call(name string, args map[string]any) Result {
	h.t.Helper()
	res, err := h.e.Call(context.Background(), h.s, name, testkit.ToolArgs(h.t, args))
	if err != nil {
		h.t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestSpecStrings(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{Workflow: true})
	h.call("read_file", map[string]any{"path": "pkg/util.go"})
	tests := []callCase{
		{"read missing", "read_file", map[string]any{"path": "nope.go"}, `{"error":"File not found: nope.go"}`, true},
		{"read blocked path", "read_file", map[string]any{"path": ".env"}, `"blocked":true`, true},
		{"read blocked content", "read_file", map[string]any{"path": "config/settings.go"}, `"blocked":true`, true},
		{"read escape", "read_file", map[string]any{"path": "../x"}, "outside the workspace", true},
		{"list missing", "list_directory", map[string]any{"path": "nope"}, `{"error":"Directory not found: nope"}`, true},
		{"list ignored", "list_directory", map[string]any{"path": "build"}, `{"error":"Directory not found: build"}`, true},
		{"grep invalid regex", "grep", map[string]any{"pattern": "a(b"}, `"warning":"Invalid regex pattern: `, false},
		{"note outside workflow", "take_note", map[string]any{"note": "x"}, "", false},
		{"empty note", "take_note", map[string]any{"note": "  "}, `{"error":"Note content cannot be empty","success":false}`, true},
		{"note ok", "take_note", map[string]any{"note": "remember"}, `{"success":true}`, false},
		{"semantic not indexed", "semantic_search", map[string]any{"query": "x"}, `{"error":"Project has not been indexed yet."}`, true},
		{"semantic bad weight", "semantic_search", map[string]any{"query": "x", "patternWeights": []string{"**/*.go:abc"}}, `invalid weight \"abc\"`, true},
		{"semantic missing colon", "semantic_search", map[string]any{"query": "x", "patternWeights": []string{"**/*.go"}}, "use 'glob:weight'", true},
		{"semantic negative", "semantic_search", map[string]any{"query": "x", "patternWeights": []string{"a:-1"}}, "number ≥ 0", true},
		{"semantic max", "semantic_search", map[string]any{"query": "x", "maxResults": 0}, "maxResults must be between 1 and 100", true},
		{"edit unread", "edit_file", map[string]any{"path": "main.go", "oldString": "main", "newString": "x"}, "must read main.go with read_file before editing", true},
		{"edit missing", "edit_file", map[string]any{"path": "nope.go", "oldString": "a", "newString": "b"}, `{"error":"File not found: nope.go"}`, true},
		{"edit not found", "edit_file", map[string]any{"path": "pkg/util.go", "oldString": "func Mul(a, b int) int { return a - b }", "newString": "x"}, `"error":"oldString not found","nearest":{"start_line":6`, true},
		{"edit multiple", "edit_file", map[string]any{"path": "pkg/util.go", "oldString": "int", "newString": "int64"}, `"error":"oldString found multiple times"`, true},
		{"edit blocked", "edit_file", map[string]any{"path": ".env", "oldString": "a", "newString": "b"}, `"blocked":true`, true},
		{"multi none", "multi_edit", map[string]any{"path": "pkg/util.go", "edits": []any{}}, `{"error":"No edits provided"}`, true},
		{"multi empty old", "multi_edit", map[string]any{"path": "pkg/util.go", "edits": []any{map[string]any{"oldString": "", "newString": "x"}}}, `"edit_index":0,"error":"Edit 0: oldString is empty"`, true},
		{"multi not found", "multi_edit", map[string]any{"path": "pkg/util.go", "edits": []any{map[string]any{"oldString": "Add", "newString": "Plus", "replaceAll": true}, map[string]any{"oldString": "Nope", "newString": "x"}, map[string]any{"oldString": "x", "newString": "y"}}}, `"error":"Edit 1: oldString not found","oldString_preview":"Nope"`, true},
		{"multi found n times", "multi_edit", map[string]any{"path": "pkg/util.go", "edits": []any{map[string]any{"oldString": "Sub", "newString": "Minus"}, map[string]any{"oldString": "int", "newString": "x"}}}, `"error":"Edit 1: oldString found 4 times (set replaceAll=true to replace all)","found_count":4`, true},
		{"unknown tool", "frobnicate", map[string]any{}, `Tool not found: \"frobnicate\"`, true},
		{"missing reason", "read_file", map[string]any{"path": "main.go", "reason": ""}, "Invalid arguments: reason is required", true},
		{"missing param", "read_file", map[string]any{}, "Invalid arguments: ", true},
		{"write .git", "write_file", map[string]any{"path": ".git/config", "content": "x"}, "Guardrail: .git/config is protected (.git/**)", true},
		{"shell blocked", "shell", map[string]any{"command": "sudo rm -rf /"}, "Guardrail: command blocked", true},
		{"shell bad timeout", "shell", map[string]any{"command": "true", "timeoutSeconds": 301}, "timeoutSeconds must be between 1 and 300", true},
		{"shell exit code", "shell", map[string]any{"command": "echo out; echo err >&2; exit 3"}, `"exit_code":3,"stderr":"err\n","stdout":"out\n","success":false`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.check(t, h.call(tt.tool, tt.args))
		})
	}
	// The failed multi-edits left the file byte-identical.
	if b, _ := os.ReadFile(filepath.Join(h.dir, "pkg/util.go")); !strings.Contains(string(b), "func Add(a, b int) int") {
		t.Errorf("a failed multi_edit changed the file:\n%s", b)
	}
	h2 := newHarness(t, "preflight", SessionConfig{})
	if res := h2.call("take_note", map[string]any{"note": "x"}); !strings.Contains(res.Output, `"error":"Notes are only available in workflow channels"`) {
		t.Errorf("take_note outside a workflow: %s", res.Output)
	}
	if res := h2.call("record_baseline", map[string]any{"issueType": "Info", "source": "Build", "pattern": "x"}); !strings.Contains(res.Output, `Invalid issueType 'Info'. Must be 'Error' or 'Warning'.`) {
		t.Errorf("record_baseline type: %s", res.Output)
	}
	if res := h2.call("record_baseline", map[string]any{"issueType": "Error", "source": "Compile", "pattern": "x"}); !strings.Contains(res.Output, `Invalid source 'Compile'. Must be 'Build', 'Lint', or 'Test'.`) {
		t.Errorf("record_baseline source: %s", res.Output)
	}
	h3 := newHarness(t, "pulsing", SessionConfig{Mode: ModeConfirmSensitive})
	if res := h3.call("write_file", map[string]any{"path": "x.txt", "content": "x"}); !strings.Contains(res.Output, "No TTY available for confirmation") {
		t.Errorf("confirmation without an editor: %s", res.Output)
	}
}

func TestReadListGlobGrep(t *testing.T) {
	h := newHarness(t, "research", SessionConfig{})
	if res := h.call("read_file", map[string]any{"path": "pkg/util.go", "startLine": 3, "endLine": 4}); res.Output != "3\t// Add adds.\n4\tfunc Add(a, b int) int { return a + b }\n" {
		t.Errorf("read range = %q", res.Output)
	}
	res := h.call("list_directory", map[string]any{})
	for _, want := range []string{`"path":"main.go","is_directory":false,"depth":1`, `"path":"pkg","is_directory":true,"depth":1`} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("list_directory = %s lacks %s", res.Output, want)
		}
	}
	for _, hidden := range []string{"build", "debug.log", "util.go"} {
		if strings.Contains(res.Output, hidden) {
			t.Errorf("list_directory depth 1 shows %s: %s", hidden, res.Output)
		}
	}
	if res := h.call("list_directory", map[string]any{"depth": nil, "type": "files"}); !strings.Contains(res.Output, "pkg/util_test.go") || strings.Contains(res.Output, `"is_directory":true`) {
		t.Errorf("list_directory unlimited files = %s", res.Output)
	}
	if res := h.call("glob_search", map[string]any{"pattern": "**/*_test.go"}); res.Output != `["pkg/util_test.go"]` {
		t.Errorf("glob_search = %s", res.Output)
	}
	res = h.call("grep", map[string]any{"pattern": "HELLO"})
	var g grepResult
	json.Unmarshal([]byte(res.Output), &g)
	var files []string
	for _, m := range g.Results {
		files = append(files, m.FilePath)
	}
	if strings.Join(files, ",") != "docs/guide.md,main.go" { // notes.txt holds a secret: skipped whole
		t.Errorf("grep files = %v (ignored, sensitive or unsorted?) %s", files, res.Output)
	}
	if res := h.call("grep", map[string]any{"pattern": "HELLO", "caseSensitive": true}); !strings.Contains(res.Output, `"results":[]`) {
		t.Errorf("case-sensitive grep = %s", res.Output)
	}
	if res := h.call("grep", map[string]any{"pattern": `func \w+\(a, b`, "glob": "pkg/*.go"}); !strings.Contains(res.Output, `"total":2`) {
		t.Errorf("regex grep = %s", res.Output)
	}
}

func TestGrepPagination(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 127; i++ {
		b.WriteString("needle\n")
	}
	writeFiles(t, dir, map[string]string{"a.txt": b.String()})
	h := newHarness(t, "research", SessionConfig{Root: dir})
	res := h.call("grep", map[string]any{"pattern": "needle"})
	if !strings.Contains(res.Output, `"warning":"Only showing 50 matches out of 127. Use skip parameter to paginate through more results."`) {
		t.Errorf("page 1 = %s", res.Output[len(res.Output)-200:])
	}
	var g grepResult
	json.Unmarshal([]byte(h.call("grep", map[string]any{"pattern": "needle", "skip": 100}).Output), &g)
	if len(g.Results) != 27 || g.Results[0].LineNumber != 101 {
		t.Errorf("page 3 = %d results starting at %d", len(g.Results), g.Results[0].LineNumber)
	}
}

func TestSecretsNeverReturned(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{})
	secrets := []string{"abcdefghijklmnopqrstuvwxyz", "AKIAIOSFODNN7EXAMPLE", "hunter2hunter2hunter2"}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": ".env"}},
		{"read_file", map[string]any{"path": "config/settings.go"}},
		{"read_file", map[string]any{"path": "notes.txt"}},
		{"grep", map[string]any{"pattern": "AKIA|hunter|TOKEN"}},
		{"grep", map[string]any{"pattern": "password"}},
		{"shell", map[string]any{"command": "cat .env config/settings.go notes.txt"}},
		{"shell", map[string]any{"command": "cat notes.txt >&2"}},
	}
	for _, c := range calls {
		res := h.call(c.tool, c.args)
		for _, s := range secrets {
			if strings.Contains(res.Output, s) {
				t.Errorf("%s %v revealed %s: %s", c.tool, c.args, s, res.Output)
			}
		}
	}
	// A secret-carrying file is masked whole in the sandbox: it reads as empty.
	if res := h.call("shell", map[string]any{"command": "cat notes.txt; wc -c < notes.txt"}); strings.Contains(res.Output, "hello plain line") || !strings.Contains(res.Output, `"stdout":"0\n"`) {
		t.Errorf("masked file = %s", res.Output)
	}
	// Output that makes up a secret is still redacted line by line.
	if res := h.call("shell", map[string]any{"command": `printf 'password = "%s"\nhello plain line\n' hunter2hunter2hunter2`}); !strings.Contains(res.Output, "[blocked]") || !strings.Contains(res.Output, "hello plain line") {
		t.Errorf("shell redaction = %s", res.Output)
	}
}

func TestEditsAndReadBeforeEdit(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{})
	h.call("read_file", map[string]any{"path": "pkg/util.go"})
	if res := h.call("edit_file", map[string]any{"path": "pkg/util.go", "oldString": "a - b", "newString": "a-b"}); res.Output != `{"replacements":1,"success":true}` {
		t.Fatalf("edit = %s", res.Output)
	}
	if res := h.call("multi_edit", map[string]any{"path": "pkg/util.go", "edits": []any{
		map[string]any{"oldString": "Add", "newString": "Plus", "replaceAll": true},
		map[string]any{"oldString": "Plus adds", "newString": "Plus sums"},
	}}); res.Output != `{"edits_applied":2,"success":true}` {
		t.Fatalf("multi_edit = %s", res.Output)
	}
	b, _ := os.ReadFile(filepath.Join(h.dir, "pkg/util.go"))
	if !strings.Contains(string(b), "// Plus sums.\nfunc Plus(a, b int) int") || !strings.Contains(string(b), "return a-b") {
		t.Errorf("file after edits:\n%s", b)
	}
	if res := h.call("write_file", map[string]any{"path": "new/file.go", "content": "package x\n"}); res.Output != `{"bytes_written":10,"path":"new/file.go","success":true}` {
		t.Errorf("write_file = %s", res.Output)
	}
	if res := h.call("edit_file", map[string]any{"path": "new/file.go", "oldString": "x", "newString": "y"}); res.Failed {
		t.Errorf("a file the session wrote counts as read: %s", res.Output)
	}
}

func TestDryRunAndConfirmation(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{DryRun: true})
	h.call("read_file", map[string]any{"path": "main.go"})
	res := h.call("write_file", map[string]any{"path": "x.txt", "content": "x"})
	if !strings.Contains(res.Output, "[DRY-RUN] Would execute: write_file(") {
		t.Errorf("dry run = %s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x.txt")); err == nil {
		t.Error("dry run wrote the file")
	}
	if sum := h.s.DryRunSummary(); len(sum) != 1 || sum[0].Tool != "write_file" || sum[0].Reason != "test" {
		t.Errorf("summary = %+v", sum)
	}
	state := t.TempDir()
	ed := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionAlwaysAllow}}
	h2 := newHarness(t, "pulsing", SessionConfig{Mode: ModeConfirmSensitive, Editor: ed, StateDir: state})
	h2.call("shell", map[string]any{"command": "ls", "reason": "look around"})
	if len(ed.Asked()) != 0 {
		t.Errorf("safe command asked for confirmation")
	}
	h2.call("shell", map[string]any{"command": "go version && make --version", "reason": "check tools"})
	h2.call("shell", map[string]any{"command": "go env GOPATH", "reason": "again"})
	if len(ed.Asked()) != 1 || ed.Last().Reason != "check tools" {
		t.Errorf("asked %d times, last %+v", len(ed.Asked()), ed.Last())
	}
	if b, err := os.ReadFile(filepath.Join(state, "always-allow.json")); err != nil || !strings.Contains(string(b), "shell:go") {
		t.Errorf("always-allow not persisted: %s %v", b, err)
	}
	ed.SetVerdict(editor.DecisionReject)
	if res := h2.call("write_file", map[string]any{"path": "y.txt", "content": "y"}); !strings.Contains(res.Output, "Action cancelled by user") {
		t.Errorf("rejected = %s", res.Output)
	}
}

func TestHooks(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{HooksFile: `{"hooks": [
		{"event": "pre_tool_use", "matcher": "^write_file$", "files": ["**/*.secret.go"], "command": "echo 'no secrets here' >&2; exit 2"},
		{"event": "pre_tool_use", "matcher": "^read_file$", "command": "echo '{\"additionalContext\": \"style guide: tabs\"}'"},
		{"event": "post_tool_use", "matcher": "^write_file$", "command": "echo formatted"}
	]}`})
	hooks, err := LoadHooks(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e = NewEngine(h.e.reg, hooks, slog.New(slog.DiscardHandler))
	if res := h.call("write_file", map[string]any{"path": "a.secret.go", "content": "x"}); !strings.Contains(res.Output, "Blocked by hook: no secrets here") {
		t.Errorf("blocking hook = %s", res.Output)
	}
	if res := h.call("write_file", map[string]any{"path": "b.go", "content": "x"}); !strings.Contains(res.Output, `"hook_context":"formatted"`) {
		t.Errorf("post hook = %s", res.Output)
	}
	if res := h.call("read_file", map[string]any{"path": "main.go"}); !strings.Contains(res.Output, "[hook] style guide: tabs") {
		t.Errorf("context hook = %s", res.Output)
	}
	writeFiles(t, dir, map[string]string{HooksFile: `{"hooks": [{"event": "pre_tool_use", "matcher": "(", "command": "x"}]}`})
	if _, err := LoadHooks(dir); err == nil || !strings.Contains(err.Error(), "matcher") {
		t.Errorf("bad matcher: %v", err)
	}
}

func TestForRoleToolSets(t *testing.T) {
	// No web search provider configured: no agent is offered web_code_search
	// (TestWebToolsOffered covers a configured one).
	base := "call_hierarchy,document_symbols,find_references,glob_search,go_to_definition,grep,hover,list_directory,read_file,semantic_search,take_note,workspace_symbols"
	want := map[string]string{
		"discussion": base, "scoping": base, "research": base, "plan": base, "review": base,
		"preflight": "call_hierarchy,document_symbols,find_references,glob_search,go_to_definition,grep,hover,list_directory,read_file,read_lints,record_baseline,run_lint,run_tests,semantic_search,shell,take_note,workspace_symbols",
		"pulsing":   "apply_patch,call_hierarchy,document_symbols,edit_file,find_references,glob_search,go_to_definition,grep,hover,list_directory,multi_edit,read_file,read_lints,rename_symbol,run_lint,run_tests,semantic_search,shell,take_note,workspace_symbols,write_file",
	}
	for role, names := range want {
		reg, err := ForRole(role, Deps{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(reg.Names(), ","); got != names {
			t.Errorf("%s tools = %s\nwant %s", role, got, names)
		}
		for _, s := range reg.Schemas(nil) {
			if !strings.Contains(string(s.Function.Parameters), `"reason"`) || !strings.Contains(string(s.Function.Parameters), `"required":["reason"`) {
				t.Errorf("%s/%s schema lacks a required reason: %s", role, s.Function.Name, s.Function.Parameters)
			}
		}
	}
	if _, err := ForRole("wizard", Deps{}); err == nil {
		t.Error("unknown role accepted")
	}
	reg, _ := ForRole("plan", Deps{})
	if err := reg.Register(newGrep()); err == nil {
		t.Error("duplicate registration accepted")
	}
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
