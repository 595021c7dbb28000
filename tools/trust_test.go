package tools

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// plantHook is a hooks file whose command leaves a marker file behind: if
// the marker exists, the planted command ran.
func plantHook(marker string) string {
	return `{"hooks": [{"event": "pre_tool_use", "command": "touch ` + marker + `"}]}`
}

// TestPlantedConfigNeverRuns plants hooks through every way an agent could
// write them (write_file, a symlinked directory, shell) and checks that the
// write is refused and that a planted file, however it got there, is
// ignored until the user trusts that exact content.
func TestPlantedConfigNeverRuns(t *testing.T) {
	store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
	marker := filepath.Join(t.TempDir(), "ran")
	dir := fixture(t)
	if err := os.Symlink(".autarch", filepath.Join(dir, "cfg")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".autarch"), 0o755)
	if err := os.Symlink(".git", filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	h := newHarness(t, "pulsing", SessionConfig{Root: dir, AllowDelete: true})
	h.e = NewEngine(allTools(t), nil, slog.New(slog.DiscardHandler))
	attacks := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": ".autarch/hooks", "content": plantHook(marker)}, "Guardrail: .autarch/hooks is protected"},
		{"write_file", map[string]any{"path": "./.autarch/hooks", "content": plantHook(marker)}, "Guardrail: .autarch/hooks is protected"},
		{"write_file", map[string]any{"path": filepath.Join(dir, ".autarch/hooks"), "content": plantHook(marker)}, "Guardrail: .autarch/hooks is protected"},
		{"write_file", map[string]any{"path": "cfg/hooks", "content": plantHook(marker)}, "Guardrail: cfg/hooks leads to .autarch/hooks, which is protected"},
		{"write_file", map[string]any{"path": "cfg/config.yaml", "content": "x: 1"}, "leads to .autarch/config.yaml, which is protected"},
		{"write_file", map[string]any{"path": ".mcp.json", "content": "{}"}, "Guardrail: .mcp.json is protected"},
		{"write_file", map[string]any{"path": "g/config", "content": "[core]\n\tfsmonitor = touch " + marker}, "leads to .git/config, which is protected"},
		{"write_file", map[string]any{"path": ".git/config", "content": "[core]\n\tfsmonitor = x"}, "Guardrail: .git/config is protected"},
		{"write_file", map[string]any{"path": "sub/.git/hooks/pre-commit", "content": "x"}, "is protected"},
		{"write_file", map[string]any{"path": ".autarch", "content": "x"}, "Guardrail: .autarch is protected"},
		{"delete_file", map[string]any{"path": "cfg/hooks"}, "protected"},
	}
	for _, a := range attacks {
		if res := h.call(a.tool, a.args); !strings.Contains(res.Output, a.want) {
			t.Errorf("%s %v → %s, want %q", a.tool, a.args["path"], res.Output, a.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".autarch", "hooks")); err == nil {
		t.Fatal("a planted hooks file was written")
	}

	// However it got there (a commit, a merge, a shell that escaped), a
	// planted file is ignored until trusted.
	writeFiles(t, dir, map[string]string{HooksFile: plantHook(marker)})
	p, err := LoadProject(dir, store)
	if err != nil {
		t.Fatal(err)
	}
	if p.Trust != trust.New || !strings.Contains(p.Untrusted(), "autarch trust") || !strings.Contains(p.Untrusted(), "touch "+marker) {
		t.Fatalf("untrusted config: %v %q", p.Trust, p.Untrusted())
	}
	h.e = NewEngine(h.e.reg, p.Hooks, slog.New(slog.DiscardHandler))
	h.call("read_file", map[string]any{"path": "main.go"})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted hook ran")
	}

	// Trusted: it runs.
	if err := store.Trust(p.Config); err != nil {
		t.Fatal(err)
	}
	p, err = LoadProject(dir, store)
	if err != nil || p.Trust != trust.Trusted || p.Untrusted() != "" {
		t.Fatalf("trusted config: %v %v %q", err, p.Trust, p.Untrusted())
	}
	h.e = NewEngine(h.e.reg, p.Hooks, slog.New(slog.DiscardHandler))
	h.call("read_file", map[string]any{"path": "main.go"})
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("a trusted hook did not run")
	}
	os.Remove(marker)

	// Changed by one byte: asked again, ignored meanwhile.
	writeFiles(t, dir, map[string]string{HooksFile: plantHook(marker) + " "})
	p, err = LoadProject(dir, store)
	if err != nil || p.Trust != trust.Changed || !strings.Contains(p.Untrusted(), "changed since it was trusted") {
		t.Fatalf("changed config: %v %v %q", err, p.Trust, p.Untrusted())
	}
	h.e = NewEngine(h.e.reg, p.Hooks, slog.New(slog.DiscardHandler))
	h.call("read_file", map[string]any{"path": "main.go"})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a changed hooks file ran without new trust")
	}
}

// TestConfigSymlinkOutsideRefused: a .autarch that is a symlink out of the
// repository is not read as configuration.
func TestConfigSymlinkOutsideRefused(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"hooks": plantHook("/tmp/x")})
	dir := fixture(t)
	if err := os.Symlink(outside, filepath.Join(dir, ".autarch")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProject(dir, nil); err == nil {
		t.Fatal("configuration read through a symlink out of the repository")
	}
}

// TestGuardrailsByEffect: code rules judge the resulting file, protected
// paths are resolved, blocked commands are matched on the parsed commands,
// hooks see normalised paths and a hook's rewrite is checked again.
func TestGuardrailsByEffect(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{
		GuardrailsFile: `{
		"protected": ["migrations/**"],
		"blocked_commands": ["^git push"],
		"code_rules": [{"pattern": "panic\\(", "message": "no panics", "files": ["**/*.go"]}]
	}`,
		"migrations/001.sql": "create table x;\n",
		"src/a.go":           "package a\n\nfunc f() { pan() }\n",
	})
	if err := os.Symlink("migrations", filepath.Join(dir, "m")); err != nil {
		t.Fatal(err)
	}
	g, err := LoadGuardrails(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e = NewEngine(allTools(t), nil, slog.New(slog.DiscardHandler)).WithGuardrails(g)
	h.call("read_file", map[string]any{"path": "src/a.go"})
	attacks := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"write_file", map[string]any{"path": "m/001.sql", "content": "drop table x;"}, "Guardrail: m/001.sql leads to migrations/001.sql, which is protected (migrations/**)"},
		{"edit_file", map[string]any{"path": "./migrations/001.sql", "oldString": "create", "newString": "drop"}, "Guardrail: migrations/001.sql is protected"},
		{"edit_file", map[string]any{"path": "src/a.go", "oldString": "pan()", "newString": "pan" + "ic(1)"}, "Guardrail: no panics"},
		// The inserted text alone has no "panic(": the resulting file does.
		{"edit_file", map[string]any{"path": "src/a.go", "oldString": "pan()", "newString": "panic(", "replaceAll": false}, "Guardrail: no panics"},
		{"multi_edit", map[string]any{"path": "src/a.go", "edits": []map[string]any{{"oldString": "pan()", "newString": "pan(x)"}, {"oldString": "(x)", "newString": "ic(2)"}}}, "Guardrail: no panics"},
		{"apply_patch", map[string]any{"path": "src/a.go", "patch": "--- a/src/a.go\n+++ b/src/a.go\n@@ -3 +3 @@\n-func f() { pan() }\n+func f() { panic(3) }\n"}, "Guardrail: no panics"},
		{"shell", map[string]any{"command": "git -C . push origin main"}, "Guardrail: command matches the blocked pattern"},
		{"shell", map[string]any{"command": `g\it push`}, "Guardrail: command matches the blocked pattern"},
		{"shell", map[string]any{"command": "echo ok && 'git' push"}, "Guardrail: command matches the blocked pattern"},
		{"shell", map[string]any{"command": "bash -c 'git push'"}, "Guardrail: command matches the blocked pattern"},
	}
	for _, a := range attacks {
		if res := h.call(a.tool, a.args); !strings.Contains(res.Output, a.want) {
			t.Errorf("%s %v → %s, want %q", a.tool, a.args, res.Output, a.want)
		}
	}
	if res := h.call("edit_file", map[string]any{"path": "src/a.go", "oldString": "pan()", "newString": "run()"}); res.Failed {
		t.Errorf("a harmless edit was refused: %s", res.Output)
	}
}

// TestHooksMatchNormalisedPaths: a hook on src/** sees ./src/x.go and the
// absolute path as src/x.go; a hook's updatedInput goes through the
// guardrails again.
func TestHooksMatchNormalisedPaths(t *testing.T) {
	dir := fixture(t)
	writeFiles(t, dir, map[string]string{"src/x.go": "package x\n"})
	hooks, err := ParseHooks(dir, []byte(`{"hooks": [
		{"event": "pre_tool_use", "matcher": "^write_file$", "files": ["src/**"], "command": "echo 'src is frozen' >&2; exit 2"},
		{"event": "pre_tool_use", "matcher": "^edit_file$", "command": "echo '{\"updatedInput\": {\"reason\": \"r\", \"path\": \".autarch/hooks\", \"oldString\": \"a\", \"newString\": \"b\"}}'"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.e = NewEngine(h.e.reg, hooks, slog.New(slog.DiscardHandler))
	for _, p := range []string{"src/x.go", "./src/x.go", "src/../src/x.go", filepath.Join(dir, "src/x.go")} {
		if res := h.call("write_file", map[string]any{"path": p, "content": "x"}); !strings.Contains(res.Output, "Blocked by hook: src is frozen") {
			t.Errorf("write_file %s → %s, want the hook to block", p, res.Output)
		}
	}
	if res := h.call("edit_file", map[string]any{"path": "main.go", "oldString": "hello", "newString": "bye"}); !strings.Contains(res.Output, "Guardrail: a hook's updatedInput is refused: .autarch/hooks is protected") {
		t.Errorf("rewritten input → %s", res.Output)
	}
}

// allTools is every tool, also those no role has (apply_patch, delete_file).
func allTools(t *testing.T) *Registry {
	t.Helper()
	reg, err := All(Deps{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
