package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// nodeServersOnPath puts the repository's node_modules/.bin (where `npm ci`
// installs typescript-language-server and pyright, devDependencies of the
// root package.json) first on PATH, and skips, saying why, when name is
// still not found.
func nodeServersOnPath(t *testing.T, name string) {
	t.Helper()
	if bin, err := filepath.Abs(filepath.Join("..", "node_modules", ".bin")); err == nil {
		if _, err := os.Stat(bin); err == nil {
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		}
	}
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed: run `npm ci` at the repository's root (it is a devDependency of package.json)", name)
	}
}

// TestCodeIntelligenceAgainstNodeServers: definition and references
// through a real typescript-language-server and a real pyright, each in
// the sandbox, on a small project of two files.
func TestCodeIntelligenceAgainstNodeServers(t *testing.T) {
	for _, tc := range []struct {
		server string
		files  map[string]string
		// use is where the symbol is used; def where it is defined.
		use      map[string]any
		wantDef  []string
		wantRefs []string
	}{
		{
			server: "typescript-language-server",
			files: map[string]string{
				"package.json":  `{"name": "p", "private": true}` + "\n",
				"tsconfig.json": `{"compilerOptions": {"strict": true, "module": "commonjs", "target": "es2020"}, "include": ["src"]}` + "\n",
				"src/store.ts": `export class Store {
  private items = new Map<string, number>();
  put(k: string, v: number): void {
    this.items.set(k, v);
  }
}

export function newStore(): Store {
  return new Store();
}
`,
				"src/app.ts": `import { newStore } from "./store";

export function load() {
  const s = newStore();
  s.put("a", 1);
  s.put("b", 2);
  return s;
}
`,
			},
			use:      map[string]any{"path": "src/app.ts", "line": 5, "symbol": "put"},
			wantDef:  []string{"src/store.ts:3"},
			wantRefs: []string{"src/app.ts:5", "src/app.ts:6"},
		},
		{
			server: "pyright-langserver",
			files: map[string]string{
				"pyproject.toml":  "[project]\nname = \"p\"\nversion = \"0.1.0\"\n",
				"pkg/__init__.py": "",
				"pkg/store.py": `class Store:
    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def put(self, k: str, v: int) -> None:
        self.items[k] = v


def new_store() -> Store:
    return Store()
`,
				"pkg/app.py": `from pkg.store import new_store


def load():
    s = new_store()
    s.put("a", 1)
    s.put("b", 2)
    return s
`,
			},
			use:      map[string]any{"path": "pkg/app.py", "line": 6, "symbol": "put"},
			wantDef:  []string{"pkg/store.py:5"},
			wantRefs: []string{"pkg/app.py:6", "pkg/app.py:7"},
		},
	} {
		t.Run(tc.server, func(t *testing.T) {
			nodeServersOnPath(t, tc.server)
			dir := t.TempDir()
			gitRepoT(t, dir, tc.files)
			h := newHarness(t, "pulsing", SessionConfig{Root: dir})
			res := h.call("go_to_definition", clone(tc.use))
			if got := places(t, res, "definitions"); !slices.Equal(got, tc.wantDef) || res.Failed {
				t.Fatalf("definition = %v, want %v: %s", got, tc.wantDef, res.Output)
			}
			res = h.call("find_references", clone(tc.use))
			if got := places(t, res, "references"); !slices.Equal(got, tc.wantRefs) || res.Failed {
				t.Errorf("references = %v, want %v: %s", got, tc.wantRefs, res.Output)
			}
			withDecl := clone(tc.use)
			withDecl["includeDeclaration"] = true
			res = h.call("find_references", withDecl)
			if got, want := places(t, res, "references"), slices.Sorted(slices.Values(append(slices.Clone(tc.wantRefs), tc.wantDef...))); !slices.Equal(got, want) {
				t.Errorf("references with the declaration = %v, want %v: %s", got, want, res.Output)
			}
		})
	}
}

// TestCodeIntelligenceAgainstRustAnalyzer: definition and references
// through rust-analyzer when it is installed (a rustup proxy without the
// component does not count).
func TestCodeIntelligenceAgainstRustAnalyzer(t *testing.T) {
	if out, err := exec.Command("rust-analyzer", "--version").CombinedOutput(); err != nil {
		t.Skipf("rust-analyzer is not installed (rustup component add rust-analyzer): %v %.80s", err, out)
	}
	if _, err := exec.LookPath("cargo"); err != nil {
		t.Skip("rust-analyzer needs cargo, which is not installed")
	}
	dir := t.TempDir()
	gitRepoT(t, dir, map[string]string{
		"Cargo.toml": "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
		"src/store.rs": `pub struct Store(Vec<i32>);

pub fn put(s: &mut Store, v: i32) {
    s.0.push(v);
}
`,
		"src/main.rs": `mod store;

fn main() {
    let mut s = store::Store(Vec::new());
    store::put(&mut s, 1);
    store::put(&mut s, 2);
}
`,
	})
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	use := map[string]any{"path": "src/main.rs", "line": 5, "symbol": "put"}
	res := h.call("go_to_definition", clone(use))
	if got := places(t, res, "definitions"); !slices.Equal(got, []string{"src/store.rs:3"}) {
		t.Fatalf("definition = %v: %s", got, res.Output)
	}
	res = h.call("find_references", clone(use))
	if got := places(t, res, "references"); !slices.Equal(got, []string{"src/main.rs:5", "src/main.rs:6"}) {
		t.Errorf("references = %v: %s", got, res.Output)
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
