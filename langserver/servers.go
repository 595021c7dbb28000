// Package langserver is Autarch's client of language servers (gopls,
// typescript-language-server, pyright, rust-analyzer): which server serves
// which files, and the process and lifecycle glue around one server per
// worktree — started lazily through a caller's Starter (the tools start it
// inside the sandbox), initialized, told about the files agents write,
// asked with a timeout, restarted on the next call after a crash or a
// hang, shut down with its pool. The LSP types are go.lsp.dev/protocol's;
// results whose shapes are unions are decoded into the small types here.
package langserver

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Server describes one language server: the files it serves, how to start
// it (over stdio) and how to install it.
type Server struct {
	// Name names the server ("gopls").
	Name string
	// Command starts it; Command[0] is looked up on PATH.
	Command []string
	// Languages maps the file extensions it serves (".go") to their LSP
	// language identifiers ("go").
	Languages map[string]string
	// Markers are files at a project's root that say it is in the
	// server's language (go.mod): workspace-wide requests go to the
	// servers whose marker a worktree has.
	Markers []string
	// Install says how to install it.
	Install string
	// InitOptions are the server's initializationOptions (nil: none).
	InitOptions map[string]any
	// Confine, when set, keeps the server from running the project's own
	// code (a tree's TypeScript, a crate's build scripts, a toolchain the
	// tree chooses), given the executable found on PATH and the worktree
	// it serves: the executable to start instead, the environment that
	// pins what it runs, and the initializationOptions to add. Its error
	// refuses to start the server.
	Confine func(exe, root string) (Launch, error)
	// Recheck, when set, is asked before each request of a running
	// server: its error (the tree now holds what Confine refuses) stops
	// the server and is the request's answer.
	Recheck func(root string) error
}

// Launch is how a server is started: the executable (host-side, never
// the tree's), extra KEY=VALUE environment, and its initializationOptions.
type Launch struct {
	Exe     string
	Env     []string
	Options map[string]any
}

// launch is how s starts for the executable exe serving root:
// InitOptions with Confine's on top, and Confine's executable and
// environment.
func (s Server) launch(exe, root string) (Launch, error) {
	if s.Confine == nil {
		return Launch{Exe: exe, Options: s.InitOptions}, nil
	}
	own, err := s.Confine(exe, root)
	if err != nil {
		return Launch{}, err
	}
	if own.Exe == "" {
		own.Exe = exe
	}
	own.Options = mergeOptions(s.InitOptions, own.Options)
	return own, nil
}

// mergeOptions is base with over's keys set on top, nested maps merged.
func mergeOptions(base, over map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		if b, ok := out[k].(map[string]any); ok {
			if o, ok := v.(map[string]any); ok {
				out[k] = mergeOptions(b, o)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// ownTypeScript pins typescript-language-server to the TypeScript installed
// beside it, as node resolves it from the server's own files: left alone,
// the server prefers the worktree's node_modules/typescript (or a .yarn or
// .pnpm SDK), which any install an agent runs can put there, and it forks
// that tsserver.js: the agent's code would run on for the whole run, beside
// the gates and the checkpoint, with the tree writable (redteam s11 02).
// Automatic typings acquisition (npm in the background) is off too.
func ownTypeScript(exe, root string) (Launch, error) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return Launch{}, fmt.Errorf("typescript-language-server at %s: %w", exe, err)
	}
	tsserver := ""
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		if filepath.Base(d) != "node_modules" {
			p := filepath.Join(d, "node_modules", "typescript", "lib", "tsserver.js")
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				tsserver = p
				break
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if tsserver != "" && root != "" {
		if t, err := filepath.EvalSymlinks(tsserver); err == nil {
			tsserver = t
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		if rel, err := filepath.Rel(root, tsserver); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			tsserver = "" // the worktree's own: never run
		}
	}
	if tsserver == "" {
		return Launch{}, fmt.Errorf("typescript-language-server (%s) has no TypeScript installed beside it; install both with `npm install -g typescript-language-server typescript` (Autarch never runs the project's own TypeScript in a language server)", real)
	}
	return Launch{Options: map[string]any{"tsserver": map[string]any{"path": tsserver}, "disableAutomaticTypingAcquisition": true}}, nil
}

// Known are the servers Autarch knows, in the order they are listed.
func Known() []Server {
	return []Server{
		{Name: "gopls", Command: []string{"gopls"}, Languages: map[string]string{".go": "go"}, Markers: []string{"go.mod", "go.work"},
			Install: "go install golang.org/x/tools/gopls@latest"},
		{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"},
			Languages: map[string]string{".ts": "typescript", ".tsx": "typescriptreact", ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript", ".cjs": "javascript"},
			Markers:   []string{"tsconfig.json", "jsconfig.json", "package.json"}, Install: "npm install -g typescript-language-server typescript",
			// Without a syntax server, answers wait for the project to load
			// (a syntax server answers "import put" for an imported put).
			InitOptions: map[string]any{"tsserver": map[string]any{"useSyntaxServer": "never"}}, Confine: ownTypeScript},
		{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Languages: map[string]string{".py": "python", ".pyi": "python"},
			Markers: []string{"pyproject.toml", "pyrightconfig.json", "setup.py", "setup.cfg", "requirements.txt"},
			Install: "npm install -g pyright"},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Languages: map[string]string{".rs": "rust"}, Markers: []string{"Cargo.toml"},
			Install: "rustup component add rust-analyzer", Confine: ownRust, Recheck: noRustConfig},
	}
}

// ForFile returns the server of servers that serves path's extension.
func ForFile(servers []Server, path string) (Server, bool) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, s := range servers {
		if _, ok := s.Languages[ext]; ok {
			return s, true
		}
	}
	return Server{}, false
}

// LanguageID is the LSP language identifier of path for s.
func (s Server) LanguageID(path string) string {
	return s.Languages[strings.ToLower(filepath.Ext(path))]
}

// Path finds the server's executable on PATH ("" and the error when it is
// not installed).
func (s Server) Path() (string, error) {
	if len(s.Command) == 0 {
		return "", &NotInstalledError{Server: s}
	}
	p, err := exec.LookPath(s.Command[0])
	if err != nil {
		return "", &NotInstalledError{Server: s}
	}
	return p, nil
}

// NotInstalledError says that a server is not installed and how to install
// it; Detail says what was found instead ("": nothing on PATH).
type NotInstalledError struct {
	Server Server
	Detail string
}

func (e *NotInstalledError) Error() string {
	what := "not found on PATH"
	if e.Detail != "" {
		what = e.Detail
	}
	return e.Server.Name + " is not installed (" + what + "): install it with `" + e.Server.Install + "`"
}

// NoServerMessage is the answer for a file no known server serves.
func NoServerMessage(servers []Server, path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		ext = "extensionless"
	}
	var known []string
	for _, s := range servers {
		exts := make([]string, 0, len(s.Languages))
		for e := range s.Languages {
			exts = append(exts, e)
		}
		slices.Sort(exts)
		known = append(known, s.Name+" ("+strings.Join(exts, " ")+"; "+s.Install+")")
	}
	return "no language server for " + ext + " files; install one Autarch knows: " + strings.Join(known, ", ") +
		"; until then use grep, search_code or semantic_search"
}
