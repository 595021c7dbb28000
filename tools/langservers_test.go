package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/langserver"
)

// TestLangServersReusedAcrossSessions: two sessions given one run's
// LangServers (two pulses) share one gopls: the second one's request
// starts nothing, and sees what the first wrote. Close stops it.
func TestLangServersReusedAcrossSessions(t *testing.T) {
	h := goplsHarness(t)
	run := NewLangServers(Config{}, nil)
	t.Cleanup(func() { run.Close(context.Background()) })
	first := newHarness(t, "pulsing", SessionConfig{Root: h.dir, LangServers: run})
	res := first.call("find_references", map[string]any{"path": "store/store.go", "line": 10, "symbol": "Put"})
	if got := places(t, res, "references"); len(got) != 3 {
		t.Fatalf("references = %v: %s", got, res.Output)
	}
	first.call("read_file", map[string]any{"path": "app/extra.go"})
	first.call("edit_file", map[string]any{"path": "app/extra.go", "oldString": `s.Put("b", 2) }`, "newString": `s.Put("b", 2); s.Put("d", 4) }`})
	first.s.Close()
	second := newHarness(t, "pulsing", SessionConfig{Root: h.dir, LangServers: run})
	res = second.call("find_references", map[string]any{"path": "store/store.go", "line": 10, "symbol": "Put"})
	if got := places(t, res, "references"); len(got) != 4 {
		t.Errorf("references in the second session = %v, want 4 (the first one's edit seen): %s", got, res.Output)
	}
	gopls, _ := langserver.ForFile(run.servers, "x.go")
	c := run.pool.Running(h.dir, gopls)
	if c == nil || c.Starts() != 1 {
		t.Fatalf("gopls running = %v, want one start shared by both sessions", c != nil)
	}
	run.Close(context.Background())
	if run.pool.Running(h.dir, gopls) != nil {
		t.Error("gopls still runs after the run's Close")
	}
}

// TestWritesReachTheServerAndBringItsDiagnostics: once a server runs for a
// file, every write tells it the new content (didChange) and the result
// carries its errors for the files written; a write before any server
// runs starts none.
func TestWritesReachTheServerAndBringItsDiagnostics(t *testing.T) {
	h := goplsHarness(t)
	h.call("read_file", map[string]any{"path": "main.go"})
	res := h.call("edit_file", map[string]any{"path": "main.go", "oldString": `s.Put("c", 3)`, "newString": `s.Put("c", "three")`})
	if res.Failed || strings.Contains(res.Output, "diagnostics") {
		t.Fatalf("a write with no server running = %s", res.Output)
	}
	if pool := h.s.langServers(); pool.Running(h.dir, langserver.Known()[0]) != nil {
		t.Fatal("a write started a language server")
	}
	// A server starts with a code intelligence call; the next write brings
	// its diagnostics.
	h.call("document_symbols", map[string]any{"path": "main.go"})
	began := time.Now()
	res = h.call("edit_file", map[string]any{"path": "main.go", "oldString": `_ = store.New()`, "newString": `_ = store.New(1)`})
	diags, _ := decode(t, res)["diagnostics"].(map[string]any)
	got, _ := diags["main.go"].([]any)
	var msgs []string
	for _, d := range got {
		msgs = append(msgs, d.(map[string]any)["message"].(string))
	}
	if res.Failed || !slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, "too many arguments") }) ||
		!slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(m, `"three"`) }) {
		t.Fatalf("write result = %s, want main.go's two type errors", res.Output)
	}
	t.Logf("an edit with errors answered in %s", time.Since(began))
	began = time.Now()
	res = h.call("write_file", map[string]any{"path": "main.go", "content": twoPackages["main.go"]})
	t.Logf("a clean write answered in %s", time.Since(began))
	began = time.Now()
	h.call("edit_file", map[string]any{"path": "main.go", "oldString": "func main() {", "newString": "// main runs.\nfunc main() {"})
	t.Logf("a clean edit of a clean file answered in %s", time.Since(began))
	if res.Failed || strings.Contains(res.Output, "diagnostics") {
		t.Errorf("a clean write = %s, want no diagnostics", res.Output)
	}
}

// TestLanguageServersConfig: language_servers in a trusted configuration
// adds a server for its extensions (asked before the known ones); in an
// untrusted one it is ignored, and the warning names it.
func TestLanguageServersConfig(t *testing.T) {
	const cfg = `language_servers:
  luals:
    command: lua-language-server
    args: [--stdio]
    extensions: [.lua]
  gopls:
    command: /opt/gopls-next
    extensions: [.go]
`
	for _, tc := range []struct {
		name    string
		trusted bool
	}{{"trusted", true}, {"untrusted", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			gitRepoT(t, dir, map[string]string{".autarch/config.yaml": cfg, "go.mod": "module m\n"})
			p, err := loadProject(t, dir, tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			list := p.Settings.LangServerList()
			lua, hasLua := langserver.ForFile(list, "a.lua")
			gopls, _ := langserver.ForFile(list, "a.go")
			if tc.trusted {
				if !hasLua || !slices.Equal(lua.Command, []string{"lua-language-server", "--stdio"}) || lua.LanguageID("a.lua") != "lua" {
					t.Errorf("lua server = %+v, %v", lua, hasLua)
				}
				if !slices.Equal(gopls.Command, []string{"/opt/gopls-next"}) || gopls.LanguageID("a.go") != "go" {
					t.Errorf("the configured gopls does not replace the known one: %+v", gopls)
				}
				if p.Untrusted() != "" {
					t.Errorf("untrusted = %q", p.Untrusted())
				}
				return
			}
			if hasLua || !slices.Equal(gopls.Command, []string{"gopls"}) {
				t.Errorf("an untrusted configuration's servers count: lua %v, gopls %v", hasLua, gopls.Command)
			}
			if msg := p.Untrusted(); !strings.Contains(msg, "language server luals: lua-language-server --stdio for .lua") {
				t.Errorf("the warning does not name the ignored server: %q", msg)
			}
		})
	}
	for _, bad := range []struct{ yaml, want string }{
		{"language_servers:\n  x:\n    extensions: [.x]\n", "language_servers.x: command is empty"},
		{"language_servers:\n  x:\n    command: xls\n", "language_servers.x: extensions is empty"},
		{"language_servers:\n  x:\n    command: xls\n    extensions: [x]\n", `extension "x": write it with its dot`},
	} {
		if _, _, err := ParseConfig([]byte(bad.yaml)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseConfig(%q) = %v, want %q", bad.yaml, err, bad.want)
		}
	}
}

// TestCodeIntelligenceOfferedOnlyWithAServer: a project no installed
// server serves is not offered the code intelligence tools, and a call of
// one says why and what to install.
func TestCodeIntelligenceOfferedOnlyWithAServer(t *testing.T) {
	reg, err := ForRole("pulsing", Deps{})
	if err != nil {
		t.Fatal(err)
	}
	plain := t.TempDir()
	writeFiles(t, plain, map[string]string{"README.txt": "words\n", "docs/a.xyz": "x\n"})
	if got := OfferCodeIntelligence(reg, plain, nil); got.Has("go_to_definition") || got.Has("rename_symbol") || !got.Has("grep") {
		t.Errorf("tools for a project without a server: %v", got.Names())
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: plain})
	h.e = NewEngine(OfferCodeIntelligence(reg, plain, nil), nil, nil)
	res := h.call("find_references", map[string]any{"path": "docs/a.xyz", "line": 1, "symbol": "x"})
	if !res.Failed || !strings.Contains(res.Output, "find_references is not offered here: no installed language server serves this project's files; install") {
		t.Errorf("calling a tool not offered = %s", res.Output)
	}
	if _, err := (langserver.Server{Command: []string{"gopls"}}).Path(); err == nil {
		goProject := t.TempDir()
		writeFiles(t, goProject, map[string]string{"go.mod": "module m\n"})
		if got := OfferCodeIntelligence(reg, goProject, nil); !got.Has("go_to_definition") || !got.Has("rename_symbol") {
			t.Errorf("tools for a Go project with gopls installed: %v", got.Names())
		}
	}
}

// TestCrashingConfiguredServerIsAResultAndRestarts: a configured server
// (language_servers) that dies on start gives the model a result saying
// so and what to do, and the next call starts it again (here: gopls
// behind a wrapper that crashes while the worktree has a .crash file).
func TestCrashingConfiguredServerIsAResultAndRestarts(t *testing.T) {
	h := goplsHarness(t)
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"crashy-gopls": "#!/bin/sh\nif [ -e .crash ]; then echo 'crashy-gopls: boom' >&2; exit 3; fi\nexec gopls \"$@\"\n"})
	if err := os.Chmod(filepath.Join(bin, "crashy-gopls"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	writeFiles(t, h.dir, map[string]string{".crash": ""})
	run := NewLangServers(Config{LanguageServers: map[string]LanguageServerConfig{"gopls": {Command: "crashy-gopls", Extensions: []string{".go"}}}}, nil)
	t.Cleanup(func() { run.Close(context.Background()) })
	s := newHarness(t, "pulsing", SessionConfig{Root: h.dir, LangServers: run})
	args := map[string]any{"path": "main.go", "line": 10, "symbol": "Put"}
	res := s.call("go_to_definition", args)
	for _, want := range []string{"the language server is not available: gopls stopped while answering initialize", "crashy-gopls: boom", "starts again on the next call", "retry once"} {
		if !res.Failed || !strings.Contains(res.Output, want) {
			t.Errorf("a crashing server = %s, want %q", res.Output, want)
		}
	}
	if err := os.Remove(filepath.Join(h.dir, ".crash")); err != nil {
		t.Fatal(err)
	}
	res = s.call("go_to_definition", args)
	if got := places(t, res, "definitions"); !slices.Equal(got, []string{"store/store.go:10"}) || run.Starts() != 2 {
		t.Errorf("after the crash: definition %v (starts %d, want 2): %s", got, run.Starts(), res.Output)
	}
}
