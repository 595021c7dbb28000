// Package mcp makes the tools of MCP servers Autarch tools: it starts the
// servers a repository (.autarch/config.yaml's mcp.servers, .mcp.json) and
// the user (<user config dir>/autarch/mcp.json) configure, over stdio or
// streamable HTTP, and adapts each server tool into a tools.Tool named
// mcp_<server>_<tool>. A repository's servers start only when the user
// trusts its configuration.
package mcp

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

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// Origins of a server's configuration.
const (
	OriginRepository = "repository"
	OriginUser       = "user"
)

// UserFile is the user's MCP configuration, in .mcp.json's format:
// <user config dir>/autarch/mcp.json.
func UserFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("locating the user config dir for MCP servers: %w", err)
	}
	return filepath.Join(dir, "autarch", "mcp.json"), nil
}

// Options configures a Manager.
type Options struct {
	// Project is the repository's configuration; its servers start only
	// when its Trust is trust.Trusted.
	Project tools.Project
	// UserFile is the user's mcp.json ("": none).
	UserFile string
	// Dir is where stdio servers run (default: the repository).
	Dir string
	// Log receives servers' stderr and lifecycle.
	Log *slog.Logger
}

// Manager holds the configured servers of one workspace. Servers start
// lazily, when their tools are first asked for. Close stops them.
type Manager struct {
	servers map[string]*Server
	// Refused are repository servers not started for want of trust.
	Refused []string
	refused map[string]tools.MCPServer
	log     *slog.Logger
}

// NewManager reads the servers' configuration; nothing starts yet.
func NewManager(o Options) (*Manager, error) {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := o.Dir
	if dir == "" {
		dir = o.Project.Config.Repo
	}
	m := &Manager{servers: map[string]*Server{}, refused: map[string]tools.MCPServer{}, log: log}
	if o.UserFile != "" {
		data, err := os.ReadFile(o.UserFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading %s: %w", o.UserFile, err)
		}
		user, err := tools.ParseMCPFile(o.UserFile, data)
		if err != nil {
			return nil, err
		}
		for name, cfg := range user {
			m.add(name, cfg, OriginUser, dir)
		}
	}
	repo, err := o.Project.MCPServers()
	if err != nil { // reported by LoadProject's warnings; the file's servers are left out
		log.Warn("repository MCP servers left out", "err", err)
	}
	for _, name := range slices.Sorted(maps.Keys(repo)) {
		if o.Project.Trust != trust.Trusted {
			m.Refused = append(m.Refused, name)
			m.refused[name] = repo[name]
			continue
		}
		m.add(name, repo[name], OriginRepository, dir)
	}
	return m, nil
}

func (m *Manager) add(name string, cfg tools.MCPServer, origin, dir string) {
	if cfg.Disabled {
		return
	}
	m.servers[name] = newServer(name, cfg, origin, dir, m.log.With("mcp", name))
}

// Servers lists the servers, sorted by name.
func (m *Manager) Servers() []*Server {
	if m == nil {
		return nil
	}
	var out []*Server
	for _, n := range slices.Sorted(maps.Keys(m.servers)) {
		out = append(out, m.servers[n])
	}
	return out
}

// Server finds a server by name.
func (m *Manager) Server(name string) (*Server, bool) {
	s, ok := m.servers[name]
	return s, ok
}

// readOnlyRoles get only tools annotated readOnlyHint (or marked
// read-only by the user); "swarm" is every swarm agent's (their writes are
// proposals an arbiter decides).
func readOnlyRoles() []string {
	return []string{"discussion", "scoping", "research", "plan", "review", "swarm"}
}

// Tools starts the servers (those not yet running) and returns their tools
// for an agent role ("" for every tool): read-only roles get only the tools
// a server annotates readOnlyHint. A server that fails to start is
// reported in errs and left out.
func (m *Manager) Tools(ctx context.Context, role string) (ts []tools.Tool, errs []error) {
	readOnly := slices.Contains(readOnlyRoles(), role)
	for _, s := range m.Servers() {
		list, err := s.Tools(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %s: %w", s.Name(), err))
			continue
		}
		for _, t := range list {
			if readOnly && !t.readOnly {
				continue
			}
			ts = append(ts, t)
		}
	}
	return ts, errs
}

// Register adds the role's MCP tools to reg (a name already there is left
// alone) and reports the servers that failed.
func (m *Manager) Register(ctx context.Context, role string, reg *tools.Registry) error {
	ts, errs := m.Tools(ctx, role)
	for _, t := range ts {
		if reg.Has(t.Name()) {
			continue
		}
		if err := reg.Register(t); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Close stops every server.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	for _, s := range m.servers {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// toolName is mcp_<server>_<tool> with every other character than
// letters, digits, _ and - replaced by _ (function names' alphabet), at
// most 64 characters.
func toolName(server, tool string) string {
	name := "mcp_" + sanitize(server) + "_" + sanitize(tool)
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, s)
}

// StateUntrusted is the state of a repository server not started because
// the user does not trust the repository's configuration.
const StateUntrusted = "untrusted"

// Status is a server's state as the side panel and `autarch mcp list`
// show it.
type Status struct {
	Name, Transport, Origin, State string
	// Tools are the agent-facing names, known once the server started.
	Tools []string
	// Err is the last error ("" if none).
	Err string
}

// Statuses reports every server, refused ones included, without starting
// any.
func (m *Manager) Statuses() []Status {
	if m == nil {
		return nil
	}
	var out []Status
	for _, s := range m.Servers() {
		out = append(out, s.Status())
	}
	for _, name := range m.Refused {
		out = append(out, Status{Name: name, Transport: m.refused[name].Transport(), Origin: OriginRepository, State: StateUntrusted, Tools: []string{},
			Err: "not started: the repository configuration is not trusted (autarch trust, or approve it when the editor asks)"})
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.Name, b.Name) })
	return out
}
