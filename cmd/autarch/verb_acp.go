package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/autarch-dev/autarch/app"
	"log/slog"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/autarch-dev/autarch/acp"
	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/job"
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
	logs := addLogFlags(fs, defaultACPLogPath())
	if code, ok := parseFlagsOnly(io, fs, "acp", args, "acp takes only flags; the client sends each session's folder"); !ok {
		return code
	}
	logger, closeLog, err := logs.open(io.err)
	if err != nil {
		return fail(io, "acp", 2, err)
	}
	defer closeLog()
	model := &liveModel{stream: f.stream}
	apiKey := os.Getenv("OPENAI_API_KEY")
	model.set(editor.ModelSettings{BaseURL: f.baseURL, Name: f.model}, apiKey)
	catalog, err := job.ToolCatalog()
	if err != nil {
		return fail(io, "acp", 1, err)
	}
	a := acp.New(acp.Config{Version: version, Log: logger, Tools: catalog,
		APIKeyMissing: func() bool { return apiKey == "" && !localEndpoint(f.baseURL) },
		Session: func(folder string, servers *acp.MCPServers, ui editor.Client, document func(string) (string, bool)) *app.Session {
			warn := func(msg string) { logger.Warn(msg) }
			return app.New(app.Config{Editor: ui, Document: document, Events: acp.Events(ui), Deltas: acp.Events(ui), Log: logger,
				Wire:   streamTo(ui, withClientMCP(withOwnMCP(f, model, warn, servers), servers, warn)),
				Search: func(folder string) workflow.CodeSearch { return newCodeSearch(folder, ui, false, logger) }})
		}})
	logger.Info("serving ACP on stdio", "version", version, "pid", os.Getpid())
	if err := a.Serve(ctx, io.in, io.out); err != nil {
		return fail(io, "acp", 1, err)
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

// clientServers are the MCP servers ACP clients passed for a folder
// (*acp.MCPServers): the set, and when servers must stop.
type clientServers interface {
	All() map[string]tools.MCPServer
	OnRelease(stop func(names []string))
	OnClose(stop func())
}

// wireFunc completes an engine's configuration (workflow.SessionConfig.Wire).
type wireFunc = func(context.Context, *workflow.Project, *workflow.Config) error

// withOwnMCP wires an engine as f.wire does, the repository's and the
// user's own MCP servers (started as agents first ask for their tools)
// stopping when the folder closes.
func withOwnMCP(f *engineFlags, model agent.Model, warn func(string), servers clientServers) wireFunc {
	return func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
		own := *f
		own.live = &liveServers{} // this engine's manager, and no other's
		if err := own.wire(model, warn)(ctx, p, cfg); err != nil {
			return err
		}
		servers.OnClose(func() { closeLive(own.live) })
		return nil
	}
}

// closeLive stops the servers of the managers l keeps.
func closeLive(l *liveServers) {
	l.mu.Lock()
	managers := slices.Collect(maps.Values(l.byRepo))
	l.mu.Unlock()
	for _, m := range managers {
		m.Close()
	}
}

// withClientMCP adds the MCP servers ACP clients passed to a wiring: they
// join the agents' tools as the user's own servers do (the user's editor
// configuration names them), through the same adapter and engine. The set
// is read each time an agent's tools are listed: it grows as later
// sessions in the folder pass more, and shrinks as the last session that
// passed a server closes, which stops it; closing the folder stops them all.
func withClientMCP(wire wireFunc, servers clientServers, warn func(string)) wireFunc {
	return func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
		if err := wire(ctx, p, cfg); err != nil || p == nil {
			return err
		}
		c := &clientMCP{servers: servers.All, dir: p.Repo.Top(), warn: warn, running: map[string]*clientServer{}}
		servers.OnRelease(c.release)
		servers.OnClose(c.close)
		if own := cfg.Tools; own != nil {
			cfg.Tools = func(ctx context.Context, role string) []tools.Tool {
				return append(own(ctx, role), c.tools(ctx, role)...)
			}
		} else {
			cfg.Tools = c.tools
		}
		return nil
	}
}

// clientMCP runs the client's servers, each in a manager of its own: a
// server starts when agents first list tools after a session passed it,
// and stops when released or closed.
type clientMCP struct {
	servers func() map[string]tools.MCPServer
	dir     string
	warn    func(string)

	mu      sync.Mutex
	running map[string]*clientServer
	// released are the servers stopped before the folder closed, stopped
	// again then (a call an agent had under way may have restarted one).
	released []*clientServer
	closed   bool
}

// clientServer is one server the client passed.
type clientServer struct {
	m       *mcp.Manager
	list    func(context.Context, string) []tools.Tool // nil: none to list
	stopped atomic.Bool
}

// tools are a role's tools of every server in the set.
func (c *clientMCP) tools(ctx context.Context, role string) []tools.Tool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	set := c.servers()
	var live []*clientServer
	for _, name := range slices.Sorted(maps.Keys(set)) {
		s := c.running[name]
		if s == nil {
			s = newClientServer(name, set[name], c.dir, c.warn)
			c.running[name] = s
		}
		live = append(live, s)
	}
	c.mu.Unlock()
	var out []tools.Tool
	for _, s := range live {
		out = append(out, s.tools(ctx, role)...)
	}
	return out
}

// release stops the servers no open session uses any more.
func (c *clientMCP) release(names []string) {
	c.mu.Lock()
	var gone []*clientServer
	for _, name := range names {
		if s := c.running[name]; s != nil {
			delete(c.running, name)
			gone = append(gone, s)
		}
	}
	c.released = append(c.released, gone...)
	c.mu.Unlock()
	stopAll(gone)
}

// close stops every server started, and starts none any more.
func (c *clientMCP) close() {
	c.mu.Lock()
	c.closed = true
	all := append(slices.Collect(maps.Values(c.running)), c.released...)
	c.running, c.released = nil, nil
	c.mu.Unlock()
	stopAll(all)
}

// newClientServer reads a server's configuration as an mcp.json (a
// private file, removed once read) into a manager of its own; nothing
// starts yet. A configuration that cannot be read is reported and lists
// no tools.
func newClientServer(name string, cfg tools.MCPServer, dir string, warn func(string)) *clientServer {
	m, err := clientManager(name, cfg, dir)
	if err != nil {
		warn(fmt.Sprintf("the editor's MCP server %s is left out: %v", name, err))
		return &clientServer{}
	}
	return &clientServer{m: m, list: managerTools(m, warn)}
}

func clientManager(name string, cfg tools.MCPServer, dir string) (*mcp.Manager, error) {
	tmp, err := os.MkdirTemp("", "autarch-acp-mcp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b, err := json.Marshal(map[string]any{"mcpServers": map[string]tools.MCPServer{name: cfg}})
	if err != nil {
		return nil, err
	}
	file := filepath.Join(tmp, "mcp.json")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return nil, err
	}
	return mcp.NewManager(mcp.Options{UserFile: file, Dir: dir, Log: slog.Default()})
}

// tools lists the server's tools for a role, starting it if needed; a
// server stopped meanwhile lists none and is stopped again (listing may
// have started it after it was stopped).
func (s *clientServer) tools(ctx context.Context, role string) []tools.Tool {
	if s.list == nil || s.stopped.Load() {
		return nil
	}
	ts := s.list(ctx, role)
	if s.stopped.Load() {
		s.m.Close()
		return nil
	}
	return ts
}

// stop stops the server's process (stdio: its stdin is closed, then it is
// sent SIGTERM, then SIGKILL) and waits for it to exit.
func (s *clientServer) stop() {
	s.stopped.Store(true)
	if err := s.m.Close(); err != nil {
		slog.Debug("MCP server stopped", "err", err)
	}
}

// stopAll stops servers all at once and waits for them.
func stopAll(servers []*clientServer) {
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(s.stop)
	}
	wg.Wait()
}
