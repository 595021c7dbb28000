package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// twoPackages is a module with a store package used from three files of
// two other packages.
var twoPackages = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.22\n",
	"store/store.go": `package store

// Store keeps values.
type Store struct{ items map[string]int }

// New makes an empty store.
func New() *Store { return &Store{items: map[string]int{}} }

// Put stores v under k.
func (s *Store) Put(k string, v int) { s.items[k] = v }
`,
	"app/app.go": `package app

import "example.com/m/store"

// Load fills a store.
func Load() *store.Store {
	s := store.New()
	s.Put("a", 1)
	return s
}
`,
	"app/extra.go": `package app

import "example.com/m/store"

func fill(s *store.Store) { s.Put("b", 2) }
`,
	"main.go": `package main

import (
	"example.com/m/app"
	"example.com/m/store"
)

func main() {
	s := app.Load()
	s.Put("c", 3)
	_ = store.New()
}
`,
	"notes.xyz": "nothing to see\n",
}

// goplsHarness is a pulsing session over a real repository of twoPackages,
// its servers started in the real sandbox; skipped without gopls.
func goplsHarness(t *testing.T) *harness {
	t.Helper()
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed: go install golang.org/x/tools/gopls@v0.23.0")
	}
	dir := t.TempDir()
	gitRepoT(t, dir, twoPackages)
	return newHarness(t, "pulsing", SessionConfig{Root: dir})
}

func decode(t *testing.T, res Result) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
		t.Fatalf("result is not JSON: %s", res.Output)
	}
	return out
}

// places are a result list's "file_path:line" entries.
func places(t *testing.T, res Result, key string) []string {
	t.Helper()
	var out []string
	list, _ := decode(t, res)[key].([]any)
	for _, x := range list {
		m := x.(map[string]any)
		out = append(out, m["file_path"].(string)+":"+jsonNumber(m["line"]))
	}
	slices.Sort(out)
	return out
}

func jsonNumber(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestCodeIntelligenceAgainstGopls: definition across packages, references
// from three files, hover, document and workspace symbols and call
// hierarchy, through a real gopls in the sandbox.
func TestCodeIntelligenceAgainstGopls(t *testing.T) {
	h := goplsHarness(t)
	at := func(extra map[string]any) map[string]any {
		m := map[string]any{"path": "main.go", "line": 10, "symbol": "Put"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	res := h.call("go_to_definition", at(nil))
	if got := places(t, res, "definitions"); !slices.Equal(got, []string{"store/store.go:10"}) || res.Failed {
		t.Fatalf("definition = %v: %s", got, res.Output)
	}
	if !strings.Contains(res.Output, `func (s *Store) Put(k string, v int)`) {
		t.Errorf("definition has no snippet: %s", res.Output)
	}
	res = h.call("find_references", at(nil))
	if got := places(t, res, "references"); !slices.Equal(got, []string{"app/app.go:8", "app/extra.go:5", "main.go:10"}) {
		t.Errorf("references = %v: %s", got, res.Output)
	}
	res = h.call("find_references", at(map[string]any{"includeDeclaration": true}))
	if got := places(t, res, "references"); len(got) != 4 {
		t.Errorf("references with the declaration = %v", got)
	}
	res = h.call("hover", map[string]any{"path": "main.go", "line": 11, "symbol": "New"})
	if hover, _ := decode(t, res)["hover"].(string); !strings.Contains(hover, "New() *store.Store") || !strings.Contains(hover, "New makes an empty store") {
		t.Errorf("hover = %s", res.Output)
	}
	res = h.call("document_symbols", map[string]any{"path": "store/store.go"})
	for _, name := range []string{`"name":"Store"`, `"name":"New"`, `"name":"(*Store).Put"`} {
		if !strings.Contains(res.Output, name) {
			t.Errorf("document symbols lack %s: %s", name, res.Output)
		}
	}
	res = h.call("workspace_symbols", map[string]any{"query": "Store"})
	if got := places(t, res, "symbols"); !slices.Contains(got, "store/store.go:4") {
		t.Errorf("workspace symbols = %v: %s", got, res.Output)
	}
	res = h.call("call_hierarchy", map[string]any{"path": "store/store.go", "line": 10, "symbol": "Put", "direction": "incoming"})
	var callers []string
	for _, c := range decode(t, res)["calls"].([]any) {
		callers = append(callers, c.(map[string]any)["name"].(string))
	}
	slices.Sort(callers)
	if !slices.Equal(callers, []string{"Load", "fill", "main"}) {
		t.Errorf("callers = %v: %s", callers, res.Output)
	}
	res = h.call("call_hierarchy", map[string]any{"path": "app/app.go", "line": 6, "symbol": "Load", "direction": "outgoing"})
	if !strings.Contains(res.Output, `"name":"New"`) || !strings.Contains(res.Output, `"name":"Put"`) {
		t.Errorf("outgoing calls = %s", res.Output)
	}
	// Mistakes are results the model can act on.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"go_to_definition", map[string]any{"path": "main.go", "line": 10, "symbol": "Get"}, `\"Get\" is not written on line 10 of main.go`},
		{"go_to_definition", map[string]any{"path": "main.go", "line": 99, "symbol": "Put"}, "line 99 is outside main.go"},
		{"hover", map[string]any{"path": "notes.xyz", "line": 1, "symbol": "nothing"}, "no language server for .xyz files; install"},
	} {
		res := h.call(tc.tool, tc.args)
		if !res.Failed || !strings.Contains(res.Output, tc.want) {
			t.Errorf("%s %v = %s, want %q", tc.tool, tc.args, res.Output, tc.want)
		}
	}
}

// TestRenameSymbolAcrossPackages: rename_symbol refuses files not read
// yet, then renames Put to Set in four files of three packages at once,
// returns the files and the diff, and the module builds.
func TestRenameSymbolAcrossPackages(t *testing.T) {
	h := goplsHarness(t)
	rename := map[string]any{"path": "store/store.go", "line": 10, "symbol": "Put", "newName": "Set"}
	res := h.call("rename_symbol", rename)
	if !res.Failed || !strings.Contains(res.Output, "read these files with read_file before renaming") {
		t.Fatalf("rename before reading = %s", res.Output)
	}
	if data, _ := os.ReadFile(h.dir + "/main.go"); !strings.Contains(string(data), "s.Put(") {
		t.Fatal("a refused rename changed main.go")
	}
	files := []string{"app/app.go", "app/extra.go", "main.go", "store/store.go"}
	for _, f := range files {
		h.call("read_file", map[string]any{"path": f})
	}
	res = h.call("rename_symbol", rename)
	out := decode(t, res)
	var got []string
	for _, f := range out["files"].([]any) {
		got = append(got, f.(string))
	}
	if res.Failed || !slices.Equal(got, files) {
		t.Fatalf("rename = %s", res.Output)
	}
	diff, _ := out["diff"].(string)
	for _, want := range []string{"-func (s *Store) Put(k string, v int)", "+func (s *Store) Set(k string, v int)", "+\ts.Set(\"c\", 3)"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	if _, ok := out["diagnostics"]; ok {
		t.Errorf("a clean rename reports diagnostics: %v", out["diagnostics"])
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = h.dir
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build after the rename: %v\n%s", err, b)
	}
	if !slices.Equal(h.s.FilesWritten(), files) {
		t.Errorf("files written = %v", h.s.FilesWritten())
	}
	// The server saw the rename: references follow the new name.
	res = h.call("find_references", map[string]any{"path": "store/store.go", "line": 10, "symbol": "Set"})
	if got := places(t, res, "references"); len(got) != 3 {
		t.Errorf("references after the rename = %v: %s", got, res.Output)
	}
}

// TestLangServersStartInTheSandbox: a server's process is bubblewrap's,
// with a network namespace of its own even in preflight (which has the
// network for its commands).
func TestLangServersStartInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{"go.mod": "module m\n"})
	h := newHarness(t, "preflight", SessionConfig{Root: dir})
	cmd, err := h.s.lspStarter()(t.Context(), dir, []string{"/usr/bin/true"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(cmd.Args, " ")
	if !strings.HasSuffix(cmd.Path, "bwrap") && !strings.Contains(args, "bwrap") {
		t.Fatalf("the server is not started by bwrap: %s %s", cmd.Path, args)
	}
	if !strings.Contains(args, "--unshare-net") {
		t.Errorf("the server has the network: %s", args)
	}
}

// TestSnippetsPassTheSecretGate: a file holding a secret is masked in the
// server's sandbox, so nothing of it comes back (and locationsOf drops the
// snippet of any file the gate blocks).
func TestSnippetsPassTheSecretGate(t *testing.T) {
	h := goplsHarness(t)
	writeFiles(t, h.dir, map[string]string{"lib.go": "package main\n\nfunc loadKeys() {}\n",
		"keys.go": "package main\n\nvar key = \"AKIAIOSFODNN7EXAMPLE\"\n\nfunc init() { _ = key; loadKeys() }\n"})
	res := h.call("find_references", map[string]any{"path": "lib.go", "line": 3, "symbol": "loadKeys"})
	// The sandbox masks the file: the server never reads it.
	if res.Failed || strings.Contains(res.Output, "AKIA") || strings.Contains(res.Output, "keys.go") {
		t.Errorf("references = %s", res.Output)
	}
}

// TestLangServersRestartWhenMasksGrow (redteam s12 02): a server's sandbox
// keeps the masks of its start, so a command whose masks hide a file the
// server's do not (a secret written after it started, or another file
// moved over a masked one) stops the tree's servers, and the next call
// starts them with the masks of then. A command that masks nothing new
// leaves them running.
func TestLangServersRestartWhenMasksGrow(t *testing.T) {
	h := goplsHarness(t)
	symbols := func() {
		t.Helper()
		if res := h.call("document_symbols", map[string]any{"path": "store/store.go"}); res.Failed {
			t.Fatalf("document_symbols = %s", res.Output)
		}
	}
	pool := h.s.langServers()
	symbols()
	h.call("shell", map[string]any{"command": "true"})
	if pool.Live() != 1 || pool.Starts() != 1 {
		t.Fatalf("after a command masking nothing new: live %d, starts %d; want the server kept", pool.Live(), pool.Starts())
	}
	const secret = "API_TOKEN=s3cr3t-0123456789abcdefghij\n"
	writeFiles(t, h.dir, map[string]string{"store/.env": secret})
	h.call("shell", map[string]any{"command": "true"})
	if pool.Live() != 0 {
		t.Fatal("a secret written after the server started left it running with the masks of before")
	}
	symbols()
	if pool.Live() != 1 || pool.Starts() != 2 {
		t.Fatalf("the next call: live %d, starts %d; want it started again", pool.Live(), pool.Starts())
	}
	// Another secret file moved over the masked one: a mask is bound onto
	// the file it hid, not the name.
	writeFiles(t, h.dir, map[string]string{"x.tmp": secret})
	if err := os.Rename(filepath.Join(h.dir, "x.tmp"), filepath.Join(h.dir, "store/.env")); err != nil {
		t.Fatal(err)
	}
	h.call("shell", map[string]any{"command": "true"})
	if pool.Live() != 0 {
		t.Fatal("a file moved over a masked one left the server running")
	}
	// A request decides the masks too: a secret written with no command
	// since is never read by the server to answer (a hover of its value).
	symbols()
	writeFiles(t, h.dir, map[string]string{"store/keys.go": "package store\n\nvar key = \"AKIAIOSFODNN7EXAMPLE\"\n"})
	symbols()
	if pool.Starts() != 4 {
		t.Fatalf("starts = %d, want 4: the request after a new secret restarts the server", pool.Starts())
	}
}

// TestLangServerOwnCachesReadOnly (redteam s12 02): the repository's own
// download caches, which every later command reads, are read-only in a
// server's sandbox (no channel out of it); its Go build cache is its own,
// writable (go list needs one) and seen by no command. The server's
// pinning environment (langserver.Launch.Env) reaches it.
func TestLangServerOwnCachesReadOnly(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{"go.mod": "module m\n"})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	cmd, err := h.s.lspStarter()(t.Context(), dir, []string{"/bin/sh", "-c",
		`echo leak > "$npm_config_cache/../leak"; echo leak > "$npm_config_cache/leak"; echo mark > "$GOCACHE/mark" && echo "$GOCACHE" && echo "pin=$AUTARCH_PIN" >&2`},
		[]string{"AUTARCH_PIN=yes"})
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.Output()
	gocache := strings.TrimSpace(string(out))
	own := h.s.ownCaches()
	for _, p := range []string{filepath.Join(own, "leak"), filepath.Join(own, "npm", "leak")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("the server wrote %s, which later commands read", p)
		}
	}
	if !strings.Contains(stderr.String(), "pin=yes") {
		t.Errorf("the server's pinning environment did not reach it: %s", stderr.String())
	}
	if gocache == "" || gocache != serverBuildCache(own) {
		t.Fatalf("the server's GOCACHE = %q (not writable?), want %s", gocache, serverBuildCache(own))
	}
	if res := h.call("shell", map[string]any{"command": "cat " + shellQuote(filepath.Join(gocache, "mark"))}); strings.Contains(res.Output, "mark\n") {
		t.Errorf("a command read the servers' build cache: %s", res.Output)
	}
}
