package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectRules(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		inPlay []string // files read, written or expected
		want   []string // substrings of the instructions, in order
		not    []string
		warn   bool
	}{
		{name: "none"},
		{name: "root AGENTS.md", files: map[string]string{"AGENTS.md": "use tabs"}, want: []string{"## AGENTS.md\n\nuse tabs"}},
		{name: "AGENTS.md then CLAUDE.md then cursor rules",
			files: map[string]string{"AGENTS.md": "a", "CLAUDE.md": "c", ".cursor/rules/b.mdc": "---\nalwaysApply: true\n---\nb-rule", ".cursor/rules/a.mdc": "---\nalwaysApply: true\nglobs: x\n---\na-rule",
				".cursor/rules/never.mdc": "---\nalwaysApply: false\n---\nnever-rule", ".cursor/rules/bare.mdc": "no front matter"},
			want: []string{"## AGENTS.md", "## CLAUDE.md", "## .cursor/rules/a.mdc\n\na-rule", "## .cursor/rules/b.mdc\n\nb-rule"}, not: []string{"never-rule", "no front matter", "alwaysApply"}},
		{name: "cursor globs: comma string, list, block, name-only",
			files: map[string]string{
				".cursor/rules/sql.mdc":    "---\ndescription: sql\nglobs: \"**/*.sql\"\nalwaysApply: false\n---\nsql-rule",
				".cursor/rules/ts.mdc":     "---\nglobs: *.ts, web/**/*.tsx\n---\nts-rule",
				".cursor/rules/list.mdc":   "---\nglobs: [\"docs/**\", \"*.md\"]\n---\ndocs-rule",
				".cursor/rules/block.mdc":  "---\nglobs:\n  - proto/*.proto\n  - api/**\n---\nproto-rule",
				".cursor/rules/go.mdc":     "---\nglobs: cmd/**/*.go\n---\ngo-rule",
				".cursor/rules/manual.mdc": "---\ndescription: on request\n---\nmanual-rule",
			},
			inPlay: []string{"db/migrations/1.sql", "web/src/app/x.ts", "README.md", "proto/a.proto", "main.go"},
			want:   []string{"## .cursor/rules/block.mdc\n\nproto-rule", "## .cursor/rules/list.mdc\n\ndocs-rule", "## .cursor/rules/sql.mdc\n\nsql-rule", "## .cursor/rules/ts.mdc\n\nts-rule"},
			not:    []string{"go-rule", "manual-rule", "globs:"}},
		{name: "cursor globs with nothing in play", files: map[string]string{".cursor/rules/sql.mdc": "---\nglobs: **/*.sql\n---\nsql-rule"}, not: []string{"sql-rule"}},
		{name: "nearest AGENTS.md of files in play",
			files:  map[string]string{"AGENTS.md": "root", "svc/AGENTS.md": "svc", "svc/api/AGENTS.md": "api", "lib/AGENTS.md": "lib"},
			inPlay: []string{"svc/api/v1/h.go", "svc/x.go", "svc/y.go", "main.go"},
			want:   []string{"## AGENTS.md", "## svc/api/AGENTS.md\n\napi", "## svc/AGENTS.md\n\nsvc"}, not: []string{"lib"}},
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
			text, warn := r.text(tt.inPlay)
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
			if _, again := r.text(tt.inPlay); again != "" {
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

func TestProjectRulesListing(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"AGENTS.md": "root", "svc/AGENTS.md": "svc", "node_modules/x/AGENTS.md": "vendored", ".cursor/rules/a.mdc": "---\nalwaysApply: true\n---\na",
		".cursor/rules/g.mdc": "---\nglobs: *.sql\n---\ng", ".cursor/rules/m.mdc": "---\ndescription: d\n---\nm", "CLAUDE.md": strings.Repeat("c", RulesCap),
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, warnings := ProjectRules(dir)
	var got []string
	for _, f := range files {
		got = append(got, fmt.Sprintf("%s %d %s", f.Path, f.Size, f.Applies))
	}
	want := []string{"AGENTS.md 4 always", fmt.Sprintf("CLAUDE.md %d always", RulesCap), ".cursor/rules/a.mdc 27 always",
		".cursor/rules/g.mdc 22 when a file in play matches *.sql", "svc/AGENTS.md 3 for files under svc/", ".cursor/rules/m.mdc 24 never (no alwaysApply or globs)"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "over the 32768-byte cap") {
		t.Errorf("warnings = %q", warnings)
	}
	if files, warnings := ProjectRules(t.TempDir()); len(files) != 0 || len(warnings) != 0 {
		t.Errorf("empty workspace: %v %v", files, warnings)
	}
}
