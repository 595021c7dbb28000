package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNoAgentProcessOutlivesItsCall (redteam s11, 02): the confinement
// rests on "a sandboxed command's processes end with it" and "the
// commands of a tree take turns" (the tree watch, the masks and pins,
// the tracked passes, the gates before the checkpoint). A language server
// is a sandbox that lives on between calls, and typescript-language-server
// runs the work tree's own TypeScript (node_modules/typescript/lib/
// tsserver.js, which any `npm install` an agent runs may put there):
// the agent's code then runs beside Autarch's own steps — the gates, the
// checkpoint's staging, every read the host makes — with the work tree
// writable and the masks of the moment the server started.
func TestNoAgentProcessOutlivesItsCall(t *testing.T) {
	nodeServersOnPath(t, "typescript-language-server")
	dir := tsProject(t)
	// What the agent's install put in the tree: TypeScript's server,
	// which also keeps writing the tree (it starts the real one, so the
	// language server answers as usual).
	real, err := filepath.Abs(filepath.Join("..", "node_modules", "typescript", "lib", "tsserver.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(real); err != nil {
		t.Skip("TypeScript is not installed: run `npm ci` at the repository's root")
	}
	writeFiles(t, dir, map[string]string{
		"node_modules/typescript/package.json": `{"name": "typescript", "version": "5.9.2"}` + "\n",
		"node_modules/typescript/lib/tsserver.js": `const fs = require("fs"), path = require("path");
const root = path.resolve(__dirname, "..", "..", "..");
let i = 0;
setInterval(() => fs.writeFileSync(path.join(root, "src", "a.ts"),
  "export function add(a: number, b: number): number { return a - b } // " + (++i) + "\n"), 50);
require(` + strconv.Quote(real) + `);
`,
	})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	h.call("document_symbols", map[string]any{"path": "src/a.ts"})
	// The call has returned: no process of the agent's may run now, so
	// the tree stays as it is.
	file := filepath.Join(dir, "src", "a.ts")
	first, _ := os.ReadFile(file)
	deadline := time.After(3 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-deadline:
			return
		case <-tick.C:
		}
		if now, _ := os.ReadFile(file); string(now) != string(first) {
			for len(now) == 0 { // caught between the truncation and the write
				<-tick.C
				now, _ = os.ReadFile(file)
			}
			t.Fatalf("after its call ended, a process the agent planted (the tree's tsserver.js, run by the language server) rewrote src/a.ts: %q", now)
		}
	}
}

// TestTreeTypeScriptNeverRuns: the worktree's node_modules/typescript is
// never the language server's (it is pinned to the TypeScript installed
// beside it): a planted tsserver.js that exits at once would fail every
// call if it ran.
func TestTreeTypeScriptNeverRuns(t *testing.T) {
	nodeServersOnPath(t, "typescript-language-server")
	dir := tsProject(t)
	writeFiles(t, dir, map[string]string{
		"node_modules/typescript/package.json":    `{"name": "typescript", "version": "5.9.2"}` + "\n",
		"node_modules/typescript/lib/tsserver.js": "process.exit(7)\n",
	})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	res := h.call("document_symbols", map[string]any{"path": "src/a.ts"})
	if res.Failed || !strings.Contains(res.Output, "add") {
		t.Fatalf("document_symbols with a planted tsserver.js in the tree = %+v: the tree's TypeScript ran", res)
	}
}

// TestLangServerTreeReadOnly: a language server's sandbox has the worktree
// read-only, so whatever project code a server ends up running cannot
// change the tree between calls.
func TestLangServerTreeReadOnly(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed")
	}
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{"go.mod": "module m\n", "a.go": "package m\n"})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	cmd, err := h.s.lspStarter()(t.Context(), dir, []string{"/bin/sh", "-c", "echo planted > a.go; echo new > b.go; mkdir d"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("the server's process wrote the tree: %s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.go")); string(b) != "package m\n" {
		t.Errorf("a.go = %q", b)
	}
	for _, p := range []string{"b.go", "d"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
}

// tsProject is a repository of one TypeScript file, its node_modules
// ignored.
func tsProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{
		"package.json":  `{"name": "p", "private": true}` + "\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true}, "include": ["src"]}` + "\n",
		"src/a.ts":      "export function add(a: number, b: number): number { return a + b }\n",
		".gitignore":    "node_modules/\n",
	})
	return dir
}
