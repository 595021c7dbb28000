package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/langserver"
)

// LanguageServerConfig is one server of ConfigFile's language_servers: a
// command speaking LSP over stdio and the file extensions it serves.
type LanguageServerConfig struct {
	// Command is the executable, looked up on PATH (or an absolute path).
	Command string `yaml:"command"`
	// Args follow the command (e.g. --stdio).
	Args []string `yaml:"args"`
	// Extensions are the file extensions it serves (".lua"); for these it
	// is asked before the servers Autarch knows.
	Extensions []string `yaml:"extensions"`
	// Install says how to install it (shown when it is missing).
	Install string `yaml:"install"`
}

func (l LanguageServerConfig) check() error {
	if strings.TrimSpace(l.Command) == "" {
		return errors.New("command is empty: name the server's executable (e.g. command: lua-language-server)")
	}
	if len(l.Extensions) == 0 {
		return errors.New("extensions is empty: list the file extensions it serves (e.g. extensions: [.lua])")
	}
	for _, e := range l.Extensions {
		if !strings.HasPrefix(e, ".") || len(e) < 2 || strings.ContainsAny(e, "/\\ ") {
			return fmt.Errorf("extension %q: write it with its dot, e.g. .lua", e)
		}
	}
	return nil
}

func (l LanguageServerConfig) describe() string {
	return strings.Join(append([]string{l.Command}, l.Args...), " ") + " for " + strings.Join(l.Extensions, " ")
}

// LangServerList is the servers of the code intelligence tools: the
// configured ones first (sorted by name; one of a known server's name
// replaces it), then those Autarch knows.
func (c Config) LangServerList() []langserver.Server {
	known := langserver.Known()
	var out []langserver.Server
	for _, name := range slices.Sorted(maps.Keys(c.LanguageServers)) {
		l := c.LanguageServers[name]
		srv := langserver.Server{Name: name, Command: append([]string{l.Command}, l.Args...), Languages: map[string]string{}, Install: l.Install}
		if srv.Install == "" {
			srv.Install = "install " + l.Command + " (configured in " + ConfigFile + ")"
		}
		for _, ext := range l.Extensions {
			ext = strings.ToLower(ext)
			id := strings.TrimPrefix(ext, ".")
			if k, ok := langserver.ForFile(known, "x"+ext); ok {
				id = k.LanguageID("x" + ext) // the LSP identifier servers expect (.ts: typescript)
			}
			srv.Languages[ext] = id
		}
		out = append(out, srv)
	}
	for _, k := range known {
		if _, replaced := c.LanguageServers[k.Name]; !replaced {
			out = append(out, k)
		}
	}
	return out
}

// LangServers are the language servers of one workflow run (or one
// session): started lazily per worktree and server, reused by every
// session given them — the pulses of a run — and shut down by Close.
type LangServers struct {
	pool    *langserver.Pool
	servers []langserver.Server
}

// NewLangServers makes the language servers of a run under the
// repository's configuration (its language_servers, already dropped by
// LoadProject when untrusted); none is started yet.
func NewLangServers(cfg Config, log *slog.Logger) *LangServers {
	return &LangServers{pool: langserver.NewPool(langserver.Options{Log: log}), servers: cfg.LangServerList()}
}

// Close shuts every server started down.
func (l *LangServers) Close(ctx context.Context) { l.pool.Close(ctx) }

// Running counts the servers running now.
func (l *LangServers) Running() int { return l.pool.Live() }

// Starts counts the servers' starts so far (restarts included).
func (l *LangServers) Starts() int { return l.pool.Starts() }

// needsLangServer reports whether the tool named name needs a language
// server (the code intelligence tools and rename_symbol).
func needsLangServer(name string) bool {
	return name == "rename_symbol" || slices.ContainsFunc(codeIntelligenceTools(), func(t Tool) bool { return t.Name() == name })
}

// OfferCodeIntelligence leaves the code intelligence tools in reg only when
// an installed server serves the project at root (servers nil: those
// Autarch knows): one whose marker file (go.mod, tsconfig.json, …) is at
// the root, or one serving a file at the root or one directory down.
func OfferCodeIntelligence(reg *Registry, root string, servers []langserver.Server) *Registry {
	if servers == nil {
		servers = langserver.Known()
	}
	if len(ProjectLangServers(root, servers)) > 0 {
		return reg
	}
	return reg.Filter(slices.DeleteFunc(reg.Names(), needsLangServer))
}

// ProjectLangServers are the installed servers of servers that serve the
// project at root.
func ProjectLangServers(root string, servers []langserver.Server) []langserver.Server {
	exts := map[string]bool{}
	var markers []string
	top, _ := os.ReadDir(root)
	for _, e := range top {
		if e.IsDir() {
			if strings.HasPrefix(e.Name(), ".") || dependencyDirs[e.Name()] {
				continue
			}
			sub, _ := os.ReadDir(filepath.Join(root, e.Name()))
			for _, f := range sub {
				if !f.IsDir() {
					exts[strings.ToLower(filepath.Ext(f.Name()))] = true
				}
			}
			continue
		}
		markers = append(markers, e.Name())
		exts[strings.ToLower(filepath.Ext(e.Name()))] = true
	}
	var out []langserver.Server
	for _, s := range servers {
		serves := slices.ContainsFunc(s.Markers, func(m string) bool { return slices.Contains(markers, m) })
		for ext := range s.Languages {
			serves = serves || exts[ext]
		}
		if _, err := s.Path(); serves && err == nil {
			out = append(out, s)
		}
	}
	return out
}

// notOffered is the answer to a call of a code intelligence tool the
// agent was not offered: no installed server serves the project.
func notOffered(name string, servers []langserver.Server) (string, bool) {
	if !needsLangServer(name) {
		return "", false
	}
	if servers == nil {
		servers = langserver.Known()
	}
	var known []string
	for _, s := range servers {
		known = append(known, s.Name+" ("+s.Install+")")
	}
	return name + " is not offered here: no installed language server serves this project's files; install one Autarch knows (" +
		strings.Join(known, ", ") + "), or use grep, search_code and read_file", true
}
