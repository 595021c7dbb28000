package tools

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/tools/verify"
)

// parseGuardrails is the guardrails of a config.yaml's content.
func parseGuardrails(t *testing.T, yaml string) *Guardrails {
	t.Helper()
	c, _, err := ParseConfig([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return c.Guardrails
}

// Replace puts new rules in force for every holder of the pointer (the
// engine keeps the one it was given), nil leaves only the built-in
// protections, and the quality gates are left alone.
func TestGuardrailsReplace(t *testing.T) {
	g, err := LoadGuardrails(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g.SetQuality(Quality{Gates: verify.Gates{Commands: map[verify.Kind]string{"test": "make test"}}})
	h := newHarness(t, "pulsing", SessionConfig{})
	h.e.WithGuardrails(g)
	steps := []struct {
		name    string
		replace bool
		now     *Guardrails
		tool    string
		args    map[string]any
		want    string
	}{
		{name: "nothing protected yet", tool: "write_file", args: map[string]any{"path": "migrations/001.sql", "content": "a\n"}, want: `"success":true`},
		{name: "protected after replace", replace: true,
			now:  parseGuardrails(t, "guardrails:\n  protected: [\"migrations/**\"]\n  blocked_commands: [\"git\\\\s+push\"]\n  code_rules:\n    - {pattern: \"panic\\\\(\", message: \"return an error, do not panic\"}\n"),
			tool: "write_file", args: map[string]any{"path": "migrations/001.sql", "content": "b\n"}, want: "Guardrail: migrations/001.sql is protected (migrations/**)"},
		{name: "code rule after replace", tool: "write_file", args: map[string]any{"path": "x.go", "content": "package x\nfunc f() { panic(1) }\n"}, want: "Guardrail: return an error, do not panic"},
		{name: "blocked command after replace", tool: "shell", args: map[string]any{"command": "git push origin main"}, want: "Guardrail: command matches the blocked pattern"},
		{name: "cap after replace", replace: true, now: parseGuardrails(t, "guardrails:\n  max_lines_changed: 3\n"),
			tool: "write_file", args: map[string]any{"path": "y.txt", "content": "1\n2\n3\n"}, want: "over the limit of 3 per call"},
		{name: "the old protection is gone", tool: "write_file", args: map[string]any{"path": "migrations/001.sql", "content": "c"}, want: `"success":true`},
		{name: "nil: built-in protections only", replace: true, tool: "write_file", args: map[string]any{"path": "y.txt", "content": "1\n2\n3\n"}, want: `"success":true`},
		{name: "nil still protects .autarch", tool: "write_file", args: map[string]any{"path": ".autarch/config.yaml", "content": "{}\n"}, want: "Guardrail: .autarch/config.yaml is protected"},
	}
	for _, st := range steps {
		if st.replace {
			g.Replace(st.now)
		}
		if res := h.call(st.tool, st.args); !strings.Contains(res.Output, st.want) {
			t.Errorf("%s: %s %v → %s, want %s", st.name, st.tool, st.args["path"], res.Output, st.want)
		}
	}
	if q, ok := g.Quality(); !ok || q.Gates.Commands["test"] != "make test" {
		t.Errorf("Replace changed the quality gates: %+v, %v", q, ok)
	}
	var none *Guardrails
	none.Replace(g)
	none.SetQuality(Quality{})
	if _, ok := none.Quality(); ok || none.ProtectedPaths() != nil || none.CodeRuleBroken("a.go", "panic(") != "" {
		t.Error("nil guardrails have rules")
	}
	if _, ok := (&Guardrails{}).Quality(); ok {
		t.Error("guardrails read alone report quality gates")
	}
}

// Checks read the rules while Replace swaps them: go test -race.
func TestGuardrailsReplaceRace(t *testing.T) {
	a := parseGuardrails(t, "guardrails:\n  protected: [\"a/**\"]\n  code_rules:\n    - {pattern: \"A\", message: a}\n")
	b := parseGuardrails(t, "guardrails:\n  protected: [\"b/**\"]\n  code_rules:\n    - {pattern: \"B\", message: b}\n")
	g := &Guardrails{}
	g.Replace(a)
	h := newHarness(t, "pulsing", SessionConfig{})
	tool, _ := h.e.Registry().Get("write_file")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				if msg := g.CodeRuleBroken("f.txt", "AB"); msg != "a" && msg != "b" {
					t.Errorf("code rule = %q, want a or b", msg)
				}
				if p := g.ProtectedPaths(); !slices.Equal(p, []string{"a/**"}) && !slices.Equal(p, []string{"b/**"}) {
					t.Errorf("protected = %v", p)
				}
				if msg := g.check(h.s, tool, []byte(`{"path":"a/x","content":"x"}`)); msg != "" && !strings.Contains(msg, "a/x is protected") {
					t.Errorf("check = %q", msg)
				}
			}
		})
	}
	for i := range 200 {
		g.Replace([]*Guardrails{a, b}[i%2])
		g.SetQuality(Quality{})
		g.Quality()
	}
	wg.Wait()
}
