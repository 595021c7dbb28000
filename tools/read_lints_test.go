package tools

import (
	"context"
	"encoding/json"
	"log/slog"
	"os/exec"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

func TestReadLints(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module example.com/x\n\ngo 1.22\n",
		"a/a.go": "package a\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n",
		"b/b.go": "package b\n\nfunc G() {}\n",
	})
	var asked [][]string
	editorDiags := func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error) {
		asked = append(asked, paths)
		return []editor.DiagnosticItem{{File: "b/b.go", Line: 3, Column: 6, Severity: "error", Message: "unused", Source: "gopls"}}, nil
	}
	tests := []struct {
		name  string
		diags Diagnostics
		path  string
		want  []string // substrings of the result
		not   string
	}{
		{"go vet in a worktree", nil, "", []string{`"file":"a/a.go"`, `"line":5`, `"source":"go vet"`, "wrong type"}, ""},
		{"go vet filtered to a directory", nil, "b", []string{`{"diagnostics":[]}`}, "a/a.go"},
		{"the editor's diagnostics", editorDiags, "b/b.go", []string{`"source":"gopls"`, `"severity":"error"`}, "go vet"},
		{"a path outside", nil, "../x", []string{"outside the workspace"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := callReadLints(t, dir, tc.diags, tc.path)
			for _, w := range tc.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("result lacks %q: %s", w, res.Output)
				}
			}
			if tc.not != "" && strings.Contains(res.Output, tc.not) {
				t.Errorf("result has %q: %s", tc.not, res.Output)
			}
		})
	}
	if len(asked) != 1 || len(asked[0]) != 1 || asked[0][0] != "b/b.go" {
		t.Errorf("the editor was asked for %v", asked)
	}
}

// TestReadLintsLinterMissing: a linter that cannot run is reported, both
// alone (not "no lints") and beside another linter's findings.
func TestReadLintsLinterMissing(t *testing.T) {
	vetFinding := "package a\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\\n\", \"x\") }\n"
	tests := []struct {
		name    string
		files   map[string]string
		noGo    bool
		want    []string
		success bool
	}{
		{"go missing", map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n", "a/a.go": "package a\n"}, true,
			[]string{"diagnostics are not available", "go is not installed"}, false},
		{"golangci-lint configured but missing, go vet findings", map[string]string{
			"go.mod": "module example.com/x\n\ngo 1.22\n", ".golangci.yml": "version: \"2\"\n", "a/a.go": vetFinding}, false,
			[]string{`"source":"go vet"`, `"errors":"golangci-lint: `, "not on PATH"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			if tc.noGo {
				t.Setenv("PATH", t.TempDir())
			} else if _, err := exec.LookPath("golangci-lint"); err == nil {
				t.Skip("golangci-lint is installed")
			}
			res := callReadLints(t, dir, nil, "")
			for _, w := range tc.want {
				if !strings.Contains(res.Output, w) {
					t.Errorf("result lacks %q: %s", w, res.Output)
				}
			}
			if res.Failed == tc.success {
				t.Errorf("failed = %v: %s", res.Failed, res.Output)
			}
		})
	}
}

// callReadLints runs read_lints on path in a pulsing session over dir.
func callReadLints(t *testing.T, dir string, diags Diagnostics, path string) Result {
	t.Helper()
	reg, _ := NewRegistry(NewReadLints())
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo, Diagnostics: diags})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	args, _ := json.Marshal(map[string]string{"reason": "r", "path": path})
	res, err := NewEngine(reg, nil, slog.New(slog.DiscardHandler)).Call(context.Background(), s, "read_lints", args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
