package tools

import (
	"strings"
	"testing"
)

func TestGuardrails(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{GuardrailsFile: `{
		"protected": ["migrations/**"],
		"blocked_commands": ["git\\s+push"],
		"max_lines_changed": 5,
		"max_files_changed": 2,
		"code_rules": [{"pattern": "fmt\\.Print", "message": "use the logger, not fmt.Print", "files": ["**/*.go"]}]
	}`})
	g, err := LoadGuardrails(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e.WithGuardrails(g)
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "migrations/001.sql", "content": "x"}, "Guardrail: migrations/001.sql is protected (migrations/**)"},
		{"write_file", map[string]any{"path": ".autarch/guardrails", "content": "{}"}, "Guardrail: .autarch/guardrails is protected"},
		{"shell", map[string]any{"command": "git push origin main"}, "Guardrail: command matches the blocked pattern"},
		{"write_file", map[string]any{"path": "big.txt", "content": "1\n2\n3\n4\n5\n6\n"}, "over the limit of 5 per call"},
		{"write_file", map[string]any{"path": "x.go", "content": "package x\nfunc f() { fmt.Println(1) }\n"}, "Guardrail: use the logger, not fmt.Print"},
		{"write_file", map[string]any{"path": "notes.md", "content": "fmt.Println is fine here\n"}, `"success":true`},
		{"write_file", map[string]any{"path": "a.txt", "content": "a\n"}, `"success":true`},
		{"write_file", map[string]any{"path": "b.txt", "content": "b\n"}, "this session already changed 2 files, the limit"},
		{"write_file", map[string]any{"path": "a.txt", "content": "again\n"}, `"success":true`},
	}
	for _, tt := range tests {
		if res := h.call(tt.tool, tt.args); !strings.Contains(res.Output, tt.want) {
			t.Errorf("%s %v → %s, want %s", tt.tool, tt.args["path"], res.Output, tt.want)
		}
	}
	writeFiles(t, dir, map[string]string{GuardrailsFile: `{"code_rules": [{"pattern": "(", "message": "x"}]}`})
	if _, err := LoadGuardrails(dir); err == nil || !strings.Contains(err.Error(), "code rule") {
		t.Errorf("bad code rule: %v", err)
	}
}
