package langserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnTypeScript: typescript-language-server is pinned to the
// TypeScript node resolves from its own files (a global install, a
// project-local install outside the worktree), never the worktree's; a
// server with no TypeScript beside it is refused, with how to install it.
func TestOwnTypeScript(t *testing.T) {
	base := t.TempDir()
	write := func(rel, data string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, rel string) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A global install: bin/typescript-language-server → lib/node_modules/….
	cli := write("global/lib/node_modules/typescript-language-server/lib/cli.mjs", "")
	global := write("global/lib/node_modules/typescript/lib/tsserver.js", "")
	globalExe := link(cli, "global/bin/typescript-language-server")
	// A server with no TypeScript anywhere above it.
	lone := write("lone/lib/node_modules/typescript-language-server/lib/cli.mjs", "")
	// A worktree whose node_modules holds both: its own TypeScript is the
	// one node would find, and it is refused.
	tree := filepath.Join(base, "tree")
	treeCli := write("tree/node_modules/typescript-language-server/lib/cli.mjs", "")
	write("tree/node_modules/typescript/lib/tsserver.js", "")

	got, err := ownTypeScript(globalExe, tree)
	if err != nil {
		t.Fatalf("global install: %v", err)
	}
	ts, _ := got.Options["tsserver"].(map[string]any)
	if want, _ := filepath.EvalSymlinks(global); ts["path"] != want {
		t.Errorf("tsserver.path = %v, want %s", ts["path"], want)
	}
	if got.Options["disableAutomaticTypingAcquisition"] != true {
		t.Errorf("typings acquisition left on: %v", got)
	}
	for name, exe := range map[string]string{"no TypeScript beside it": lone, "the worktree's own": treeCli} {
		if _, err := ownTypeScript(exe, tree); err == nil || !strings.Contains(err.Error(), "npm install -g typescript-language-server typescript") {
			t.Errorf("%s: err = %v, want a refusal saying how to install", name, err)
		}
	}
	// Through the server's options: the fixed ones stay, the pin is added.
	srv, _ := ForFile(Known(), "a.ts")
	l, err := srv.launch(globalExe, tree)
	if err != nil {
		t.Fatal(err)
	}
	opts := l.Options
	ts, _ = opts["tsserver"].(map[string]any)
	if ts["useSyntaxServer"] != "never" || ts["path"] == nil {
		t.Errorf("initializationOptions = %v, want useSyntaxServer kept and path pinned", opts)
	}
}
