package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/acp"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp"
)

func acpVerb() verb {
	return verb{
		name:    "acp",
		usage:   "autarch acp [--model NAME] [--base-url URL] [--mode MODE] [--log FILE] [--log-level LEVEL] [engine flags]",
		summary: "speak the Agent Client Protocol on stdin/stdout (Zed, JetBrains, CodeCompanion)",
		run:     runACP,
	}
}

// runACP serves ACP on stdio: each session's folder gets a workflow
// session wired like the LSP server's (engine.go), with the model the
// flags and environment name.
func runACP(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("acp", io)
	f := addEngineFlags(fs)
	logPath := fs.String("log", defaultACPLogPath(), "log file (appended; \"\" for stderr only)")
	level := fs.String("log-level", envOr("AUTARCH_LOG_LEVEL", "info"), "log level: debug, info, warn or error")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "autarch acp: unexpected argument %q (acp takes only flags; the client sends each session's folder)\n", fs.Arg(0))
		return 2
	}
	lvl, err := parseLevel(*level)
	if err != nil {
		fmt.Fprintf(io.err, "autarch acp: %v\n", err)
		return 2
	}
	logger, closeLog := newLogger(io.err, *logPath, lvl)
	defer closeLog()
	model := &liveModel{stream: f.stream}
	apiKey := os.Getenv("OPENAI_API_KEY")
	model.set(editor.ModelSettings{BaseURL: f.baseURL, Name: f.model}, apiKey)
	f.live = &liveServers{}
	a := acp.New(acp.Config{Version: version, Log: logger,
		APIKeyMissing: func() bool { return apiKey == "" && !localEndpoint(f.baseURL) },
		Session: func(folder string, servers *acp.MCPServers, ui editor.Client, document func(string) (string, bool)) *workflow.Session {
			warn := func(msg string) { logger.Warn(msg) }
			return workflow.NewSession(workflow.SessionConfig{Editor: ui, Document: document, Log: logger,
				Wire:   streamTo(ui, withClientMCP(f.wire(model, warn), servers.All, warn)),
				Search: func(folder string) workflow.CodeSearch { return newCodeSearch(folder, ui, false, logger) }})
		}})
	logger.Info("serving ACP on stdio", "version", version, "pid", os.Getpid())
	if err := a.Serve(ctx, io.in, io.out); err != nil {
		fmt.Fprintf(io.err, "autarch acp: %v\n", err)
		return 1
	}
	return 0
}

// localEndpoint reports whether a model endpoint is on this machine (a
// local model needs no API key).
func localEndpoint(base string) bool {
	if base == "" {
		return false
	}
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// defaultACPLogPath is <user cache dir>/autarch/logs/acp.log.
func defaultACPLogPath() string {
	if p := defaultLogPath(); p != "" {
		return p[:len(p)-len("serve.log")] + "acp.log"
	}
	return ""
}

// streamTo makes the agents' text stream to the client as it is written.
func streamTo(ui editor.Client, wire func(context.Context, *workflow.Project, *workflow.Config) error) func(context.Context, *workflow.Project, *workflow.Config) error {
	return func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
		if err := wire(ctx, p, cfg); err != nil {
			return err
		}
		cfg.Deltas = acp.Deltas(ui)
		return nil
	}
}

// withClientMCP adds the MCP servers ACP clients passed to a wiring: they
// join the agents' tools as the user's own servers do (the user's editor
// configuration names them), through the same adapter and engine. servers
// is read each time an agent's tools are listed: the set grows as later
// sessions in the folder pass more.
func withClientMCP(wire func(context.Context, *workflow.Project, *workflow.Config) error, servers func() map[string]tools.MCPServer, warn func(string)) func(context.Context, *workflow.Project, *workflow.Config) error {
	return func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
		if err := wire(ctx, p, cfg); err != nil || p == nil {
			return err
		}
		client := (&clientMCP{servers: servers, dir: p.Repo.Top(), warn: warn, started: map[string]bool{}}).tools
		if own := cfg.Tools; own != nil {
			cfg.Tools = func(ctx context.Context, role string) []tools.Tool {
				return append(own(ctx, role), client(ctx, role)...)
			}
		} else {
			cfg.Tools = client
		}
		return nil
	}
}

// clientMCP starts the client's servers as they are first seen, each
// batch in a manager of its own (servers already running are kept).
type clientMCP struct {
	servers func() map[string]tools.MCPServer
	dir     string
	warn    func(string)

	mu      sync.Mutex
	started map[string]bool
	batches []func(context.Context, string) []tools.Tool
}

// tools are a role's tools of every server the client passed so far.
func (c *clientMCP) tools(ctx context.Context, role string) []tools.Tool {
	c.mu.Lock()
	fresh := map[string]tools.MCPServer{}
	for name, s := range c.servers() {
		if !c.started[name] {
			c.started[name] = true
			fresh[name] = s
		}
	}
	if len(fresh) > 0 {
		batch, err := clientMCPTools(fresh, c.dir, c.warn)
		switch {
		case err != nil:
			c.warn(fmt.Sprintf("the editor's MCP servers %s are left out: %v", strings.Join(slices.Sorted(maps.Keys(fresh)), ", "), err))
		case batch != nil:
			c.batches = append(c.batches, batch)
		}
	}
	batches := slices.Clone(c.batches)
	c.mu.Unlock()
	var out []tools.Tool
	for _, b := range batches {
		out = append(out, b(ctx, role)...)
	}
	return out
}

// clientMCPTools reads the servers as an mcp.json (a private file, removed
// once read) into a manager of their own.
func clientMCPTools(servers map[string]tools.MCPServer, dir string, warn func(string)) (func(context.Context, string) []tools.Tool, error) {
	tmp, err := os.MkdirTemp("", "autarch-acp-mcp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return nil, err
	}
	file := filepath.Join(tmp, "mcp.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return nil, err
	}
	m, err := mcp.NewManager(mcp.Options{UserFile: file, Dir: dir, Log: slog.Default()})
	if err != nil {
		return nil, err
	}
	return managerTools(m, warn), nil
}
