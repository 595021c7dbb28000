package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectRules(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		written []string
		want    []string // substrings of the instructions, in order
		not     []string
		warn    bool
	}{
		{name: "none"},
		{name: "root AGENTS.md", files: map[string]string{"AGENTS.md": "use tabs"}, want: []string{"## AGENTS.md\n\nuse tabs"}},
		{name: "AGENTS.md then CLAUDE.md then cursor rules",
			files: map[string]string{"AGENTS.md": "a", "CLAUDE.md": "c", ".cursor/rules/b.mdc": "---\nalwaysApply: true\n---\nb-rule", ".cursor/rules/a.mdc": "---\nalwaysApply: true\nglobs: x\n---\na-rule",
				".cursor/rules/never.mdc": "---\nalwaysApply: false\n---\nnever-rule", ".cursor/rules/bare.mdc": "no front matter"},
			want: []string{"## AGENTS.md", "## CLAUDE.md", "## .cursor/rules/a.mdc\n\na-rule", "## .cursor/rules/b.mdc\n\nb-rule"}, not: []string{"never-rule", "no front matter", "alwaysApply"}},
		{name: "nearest AGENTS.md of written files",
			files:   map[string]string{"AGENTS.md": "root", "svc/AGENTS.md": "svc", "svc/api/AGENTS.md": "api", "lib/AGENTS.md": "lib"},
			written: []string{"svc/api/v1/h.go", "svc/x.go", "svc/y.go", "main.go"},
			want:    []string{"## AGENTS.md", "## svc/api/AGENTS.md\n\napi", "## svc/AGENTS.md\n\nsvc"}, not: []string{"lib"}},
		{name: "capped with a warning", files: map[string]string{"AGENTS.md": strings.Repeat("x", RulesCap+10)}, want: []string{"cut at the size cap"}, warn: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := loadRules(dir)
			text, warn := r.text(tt.written)
			if len(tt.want) == 0 && text != "" {
				t.Errorf("instructions = %q, want none", text)
			}
			rest := text
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("instructions lack %q (in order):\n%s", w, text)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(text, n) {
					t.Errorf("instructions contain %q:\n%s", n, text)
				}
			}
			if (warn != "") != tt.warn || len(text) > RulesCap+100 {
				t.Errorf("warning = %q, length %d", warn, len(text))
			}
			if _, again := r.text(tt.written); again != "" {
				t.Errorf("warned twice: %s", again)
			}
		})
	}
}

func TestProjectRulesRefuseSymlinksOut(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("token"), 0o600)
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	if text, _ := loadRules(dir).text(nil); text != "" {
		t.Errorf("followed a symlink out: %q", text)
	}
}
