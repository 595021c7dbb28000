package workflow_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// configRepo is a committed repository whose .autarch/config.yaml is
// content, write to change that file, and an empty trust store.
func configRepo(t *testing.T, content string) (dir string, write func(string), store *trust.Store) {
	t.Helper()
	dir = t.TempDir()
	cfgPath := filepath.Join(dir, ".autarch", "config.yaml")
	write = func(content string) {
		t.Helper()
		must(t, os.MkdirAll(filepath.Dir(cfgPath), 0o755))
		must(t, os.WriteFile(cfgPath, []byte(content), 0o644))
	}
	write(content)
	testkit.Commit(t, dir)
	return dir, write, trust.At(filepath.Join(t.TempDir(), "trusted.json"))
}

// A configuration file edited while the project is open: a broken one
// keeps the last good configuration in force (the warning names the line
// and the key), unknown keys are warnings, and changed content runs only
// once trusted again.
func TestProjectReloadKeepsLastGoodConfig(t *testing.T) {
	ctx := context.Background()
	dir, write, store := configRepo(t, "hooks:\n  post_tool_use:\n    - name: lint\n      command: echo first\nguardrails:\n  protected: [\"secret/**\"]\n")
	cfg, err := trust.Read(dir)
	must(t, err)
	must(t, store.Trust(cfg))
	p, err := workflow.OpenProject(ctx, dir, store)
	must(t, err)
	defer p.Close()
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo first"}) {
		t.Fatalf("hooks at open = %v", got)
	}

	write("hooks:\n  post_tool_use:\n    - name: lint\n      command: echo second\n      timeout: soon\nguardrails:\n  protected: []\n")
	warnings := p.Reload()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 5: key hooks.post_tool_use[0].timeout") ||
		!strings.Contains(warnings[0], "the last good configuration stays in force") {
		t.Errorf("broken file: warnings = %q", warnings)
	}
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo first"}) {
		t.Errorf("broken file: hooks = %v, want the last good ones", got)
	}
	if got := p.Guardrails.ProtectedPaths(); !slices.Equal(got, []string{"secret/**"}) {
		t.Errorf("broken file: protected = %v, want the last good ones", got)
	}

	write("hooks:\n  post_tool_use:\n    - name: lint\n      command: echo second\ncolour: blue\nguardrails:\n  protected: [\"vault/**\"]\n")
	warnings = p.Reload()
	joined := strings.Join(warnings, "\n")
	if !strings.Contains(joined, "line 5: unknown key colour (ignored") || !strings.Contains(joined, "changed since it was trusted") {
		t.Errorf("changed file: warnings = %q", warnings)
	}
	if got := p.Hooks.Commands(); len(got) != 0 {
		t.Errorf("untrusted changed content runs hooks %v", got)
	}
	if got := p.Guardrails.ProtectedPaths(); !slices.Equal(got, []string{"vault/**"}) {
		t.Errorf("untrusted changed content: protected = %v, want its guardrails in force", got)
	}

	cfg, err = trust.Read(dir)
	must(t, err)
	must(t, store.Trust(cfg))
	warnings = p.Reload()
	if got := p.Hooks.Commands(); !slices.Equal(got, []string{"post_tool_use: echo second"}) || len(warnings) != 1 {
		t.Errorf("trusted again: hooks = %v, warnings = %q (want the unknown key only)", got, warnings)
	}
}

// Guardrails saved while a session runs apply to it at once, trusted or
// not: a path protected only after the reload and a code rule added live
// are refused by the engine the session was started with, and its
// commands see the newly protected path read-only; a broken file
// keeps them. Quality gate commands of untrusted content do not run; once
// the content is trusted, they do.
func TestProjectReloadGuardrailsLive(t *testing.T) {
	ctx := context.Background()
	dir, write, store := configRepo(t, "guardrails:\n  max_lines_changed: 100\n")
	p, err := workflow.OpenProject(ctx, dir, store)
	must(t, err)
	defer p.Close()

	reg, err := tools.ForRole("pulsing", tools.Deps{})
	must(t, err)
	sess, err := tools.NewSession(tools.SessionConfig{Root: dir, Role: "pulsing", Mode: tools.ModeYolo, Protected: p.Guardrails.ProtectedPaths()})
	must(t, err)
	defer sess.Close()
	eng := tools.NewEngine(reg, p.Hooks, slog.New(slog.DiscardHandler)).WithGuardrails(p.Guardrails)
	call := func(path, content string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"path": path, "content": content, "reason": "test"})
		res, err := eng.Call(ctx, sess, "write_file", args)
		must(t, err)
		return res.Output
	}
	if out := call("migrations/001.sql", "create table a;\n"); !strings.Contains(out, `"success":true`) {
		t.Fatalf("before the reload: %s", out)
	}

	write("guardrails:\n  protected: [\"migrations/**\"]\n  code_rules:\n    - {pattern: \"panic\\\\(\", message: \"return an error instead of panicking\", files: [\"**/*.go\"]}\n")
	warnings := p.Reload()
	if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, "is not trusted yet, so it is ignored") }) {
		t.Errorf("untrusted reload: warnings = %q, want the untrusted notice", warnings)
	}
	steps := []struct{ name, path, content, want string }{
		{"protected live", "migrations/001.sql", "drop table a;\n", "Guardrail: migrations/001.sql is protected (migrations/**)"},
		{"code rule live", "main.go", "package main\n\nfunc main() { panic(1) }\n", "Guardrail: return an error instead of panicking"},
		{"code rule only in its files", "notes.md", "panic( is fine in prose\n", `"success":true`},
	}
	for _, st := range steps {
		if out := call(st.path, st.content); !strings.Contains(out, st.want) {
			t.Errorf("%s: %s → %s, want %s", st.name, st.path, out, st.want)
		}
	}
	args, _ := json.Marshal(map[string]string{"command": "echo dropped > migrations/001.sql", "reason": "test"})
	res, err := eng.Call(ctx, sess, "shell", args)
	must(t, err)
	if data, _ := os.ReadFile(filepath.Join(dir, "migrations", "001.sql")); string(data) != "create table a;\n" {
		t.Errorf("a command wrote a path protected live: %q (shell: %s)", data, res.Output)
	}

	write("guardrails:\n  protected: [\"migrations/**\"\n")
	if warnings := p.Reload(); len(warnings) != 1 || !strings.Contains(warnings[0], "the last good configuration stays in force") {
		t.Errorf("broken file: warnings = %q", warnings)
	}
	if out := call("migrations/001.sql", "drop table a;\n"); !strings.Contains(out, "is protected") {
		t.Errorf("broken file: the live protection was lost: %s", out)
	}

	write("guardrails:\n  quality_gates:\n    gates: [test]\n    commands: {test: \"echo ran > gate-ran.txt\"}\n")
	p.Reload()
	q, ok := p.Guardrails.Quality()
	if !ok || len(q.Gates.Commands) != 0 || !slices.Equal(q.Ignored, []string{"echo ran > gate-ran.txt"}) {
		t.Errorf("untrusted gates: %+v (ok %v), want the command ignored", q, ok)
	}
	sess.QualityGates(ctx, q.Gates, []string{"notes.md"})
	if _, err := os.Stat(filepath.Join(dir, "gate-ran.txt")); err == nil {
		t.Fatal("a quality gate command of untrusted content ran")
	}
	if out := call("migrations/001.sql", "drop table a;\n"); !strings.Contains(out, `"success":true`) {
		t.Errorf("protection removed by a good file still in force: %s", out)
	}

	cfg, err := trust.Read(dir)
	must(t, err)
	must(t, store.Trust(cfg))
	p.Reload()
	q, _ = p.Guardrails.Quality()
	if q.Gates.Commands["test"] != "echo ran > gate-ran.txt" {
		t.Fatalf("trusted gates: %+v, want the command", q)
	}
	if run := sess.QualityGates(ctx, q.Gates, []string{"notes.md"}); run.Failed() {
		t.Errorf("trusted gate failed: %+v", run)
	}
	if _, err := os.Stat(filepath.Join(dir, "gate-ran.txt")); err != nil {
		t.Errorf("the trusted gate command did not run: %v", err)
	}
}
