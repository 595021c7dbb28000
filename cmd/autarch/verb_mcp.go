package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp"
	"github.com/autarch-dev/autarch/tools/websearch"
)

func mcpVerb() verb {
	return verb{
		name:    "mcp",
		usage:   "autarch mcp list [--root DIR]",
		summary: "list the configured MCP servers, their state and tools",
		run:     runMCP,
	}
}

func runMCP(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 || args[0] != "list" {
		return usageError(io, mcpVerb())
	}
	fs := newFlagSet("mcp list", io)
	root := fs.String("root", ".", "workspace whose servers to list (with the user's)")
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	_, m, err := projectServers(io, "mcp", *root)
	if err != nil {
		return fail(io, "mcp", 1, err)
	}
	defer m.Close()
	if len(m.Servers()) == 0 && len(m.Refused) == 0 {
		user, _ := mcp.UserFile()
		fmt.Fprintf(io.out, "No MCP server is configured (mcp.servers in %s, %s, or %s).\n", tools.ConfigFile, tools.MCPFile, user)
		return 0
	}
	code := 0
	for _, s := range m.Servers() {
		list, err := s.Tools(ctx)
		state, _ := s.State()
		fmt.Fprintf(io.out, "%s (%s, %s): %s\n", s.Name(), s.Transport(), s.Origin(), state)
		if err != nil {
			fmt.Fprintf(io.out, "  error: %v\n", err)
			code = 1
			continue
		}
		for _, t := range list {
			ro := ""
			if t.ReadOnly() {
				ro = " (read-only)"
			}
			fmt.Fprintf(io.out, "  %s%s\n", t.Name(), ro)
		}
	}
	for _, name := range m.Refused {
		fmt.Fprintf(io.out, "%s (repository): not started, the repository configuration is not trusted (autarch trust)\n", name)
	}
	return code
}

// mcpManager is the MCP servers of a project and of the user; servers a
// repository configures but the user did not trust are reported.
func mcpManager(io stdio, p tools.Project) (*mcp.Manager, error) {
	user, err := mcp.UserFile()
	if err != nil {
		user = ""
	}
	log := warnLog(io.err, "")
	return mcp.NewManager(mcp.Options{Project: p, UserFile: user, Log: log})
}

// projectServers loads the project at root for verb and starts its MCP
// servers and the user's; the caller closes the servers.
func projectServers(io stdio, verb, root string) (tools.Project, *mcp.Manager, error) {
	project, err := loadProject(io, verb, root)
	if err != nil {
		return tools.Project{}, nil, err
	}
	m, err := mcpManager(io, project)
	if err != nil {
		return tools.Project{}, nil, err
	}
	return project, m, nil
}

// projectTools is projectServers for a role's registry: reg gets the MCP
// servers' tools and the configured web search, then the project's tool
// settings apply to it. closeServers stops the servers.
func projectTools(ctx context.Context, io stdio, verb, root, role string, reg *tools.Registry) (_ tools.Project, _ *tools.Registry, closeServers func(), _ error) {
	p, m, err := projectServers(io, verb, root)
	if err != nil {
		return tools.Project{}, nil, nil, err
	}
	withMCP(ctx, io, verb, m, role, reg)
	withWeb(io, verb, p, role, reg)
	if reg, err = p.Settings.Apply(reg, role); err != nil {
		m.Close()
		return tools.Project{}, nil, nil, err
	}
	return p, reg, func() { m.Close() }, nil
}

// withMCP adds a role's MCP tools to reg; servers that fail are reported
// and left out.
func withMCP(ctx context.Context, io stdio, verb string, m *mcp.Manager, role string, reg *tools.Registry) {
	if err := m.Register(ctx, role, reg); err != nil {
		fmt.Fprintf(io.err, "autarch %s: %v\n", verb, err)
	}
}

// projectMCPTools gives workflow agents the MCP servers' tools (servers
// start with the first agent that asks); a configuration that cannot be
// read, or servers that fail, are reported with warn. The servers live as
// long as the process (stdio ones end with its stdin); live (nil: none)
// keeps them for the side panel.
func projectMCPTools(p tools.Project, warn func(string), live *liveServers) func(context.Context, string) []tools.Tool {
	user, err := mcp.UserFile()
	if err != nil {
		user = ""
	}
	m, err := mcp.NewManager(mcp.Options{Project: p, UserFile: user, Log: slog.Default()})
	if err != nil {
		warn(fmt.Sprintf("MCP servers: %v", err))
		return nil
	}
	live.add(p.Config.Repo, m)
	return managerTools(m, warn)
}

// managerTools gives agents a manager's tools (nil for none), reporting
// each distinct server failure once with warn.
func managerTools(m *mcp.Manager, warn func(string)) func(context.Context, string) []tools.Tool {
	if len(m.Servers()) == 0 {
		return nil
	}
	var mu sync.Mutex
	warned := map[string]bool{}
	return func(ctx context.Context, role string) []tools.Tool {
		ts, errs := m.Tools(ctx, role)
		mu.Lock()
		defer mu.Unlock()
		for _, err := range errs {
			if !warned[err.Error()] {
				warned[err.Error()] = true
				warn(err.Error())
			}
		}
		return ts
	}
}

// webSearch is the web search provider the user configured for a project
// (environment, user config file, trusted repository config); nil when
// none is or it cannot be used (then warn says why), and then no agent is
// offered the web tools.
func webSearch(p tools.Project, warn func(string)) tools.WebSearcher {
	user, err := websearch.UserFile()
	if err != nil {
		user = ""
	}
	web, _, err := p.WebSearchProvider(os.Getenv, user)
	if err != nil {
		warn(err.Error() + "; the web search tools are not offered until it is fixed")
		return nil
	}
	return web
}

// withWeb offers a role's registry the configured web search.
func withWeb(io stdio, verb string, p tools.Project, role string, reg *tools.Registry) {
	if err := tools.WithWeb(reg, role, webSearch(p, stderrWarn(io, verb))); err != nil {
		fmt.Fprintf(io.err, "autarch %s: %v\n", verb, err)
	}
}
