package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestToolsGolden keeps every tool's name, description and schema stable.
// The web tools are offered only with a provider: one is configured here
// (nothing is asked of it) so that their schemas are kept stable too.
func TestToolsGolden(t *testing.T) {
	t.Setenv("AUTARCH_WEB_SEARCH_URL", "http://127.0.0.1:9")
	for _, role := range []string{"", "pulsing", "preflight", "review", "job"} {
		name := "tools-all.golden"
		args := []string{"tools"}
		if role != "" {
			name = "tools-" + role + ".golden"
			args = append(args, "--agent", role)
		}
		code, out, errOut := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		testkit.Golden(t, filepath.Join("testdata", name), []byte(out), *update)
	}
	t.Setenv("AUTARCH_WEB_SEARCH_URL", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	if code, out, errOut := run(t, "tools", "--agent", "research"); code != 0 || strings.Contains(out, "web_code_search") {
		t.Errorf("without a web search provider: exit %d, web_code_search offered: %v %s", code, strings.Contains(out, "web_code_search"), errOut)
	}
	t.Setenv("AUTARCH_WEB_SEARCH_PROVIDER", "brave")
	if code, out, errOut := run(t, "tools", "--agent", "research"); code != 0 || strings.Contains(out, "web_code_search") || !strings.Contains(errOut, "needs an API key") {
		t.Errorf("brave without a key: exit %d, web_code_search offered: %v, stderr %s", code, strings.Contains(out, "web_code_search"), errOut)
	}
	if code, _, errOut := run(t, "tools", "--agent", "wizard"); code != 2 || !strings.Contains(errOut, `unknown agent role "wizard"`) {
		t.Errorf("bad role: %d %s", code, errOut)
	}
}

func TestToolVerb(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar x = 1\n"), 0o644)
	calls := filepath.Join(t.TempDir(), "calls.jsonl")
	os.WriteFile(calls, []byte(`{"name":"read_file","args":{"path":"a.go","reason":"read first"}}
{"name":"edit_file","args":{"path":"a.go","oldString":"x = 1","newString":"x = 2","reason":"bump"}}
{"name":"take_note","args":{"note":"bumped x","reason":"remember"}}
{"name":"grep","args":{"pattern":"x = 2","reason":"check"}}
`), 0o644)
	code, out, errb := run(t, "tool", "--root", dir, "--mode", "yolo", "--calls", calls)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, errb)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 rows, got %q", out)
	}
	var rows []struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
	}
	for _, l := range lines {
		var r struct {
			Name   string          `json:"name"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	if string(rows[0].Result) != `"1\tpackage a\n2\t\n3\tvar x = 1\n"` || string(rows[1].Result) != `{"replacements":1,"success":true}` ||
		string(rows[2].Result) != `{"success":true}` || !strings.Contains(string(rows[3].Result), `"file_path":"a.go","line_number":3`) {
		t.Errorf("rows = %s", out)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tool", "--root", dir, "nope", "{}"}, `unknown tool "nope"`},
		{[]string{"tool", "--root", dir, "read_file", "{bad"}, "not valid JSON"},
		{[]string{"tool", "--root", dir, "--mode", "wild", "read_file", "{}"}, `unknown confirmation mode "wild"`},
		{[]string{"tool", "--root", dir, "read_file"}, "usage: autarch tool"},
	}
	for _, tt := range tests {
		code, _, errOut := run(t, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, errOut, tt.want)
		}
	}
}
