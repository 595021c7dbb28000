package acp

import (
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/tools"
)

// MCPServers are the MCP servers clients passed for one folder's sessions:
// the union of every open session's, keyed by name. A folder's sessions
// share one engine, whose agents get them all; a name keeps its first
// definition, and a session passing another one for it is refused.
//
// A server stays in the set while an open session that passed it does:
// when the last of them closes it leaves the set and the wiring that
// started it stops it (OnRelease); when the folder closes (autarch acp
// exits), every server started for it is stopped (OnClose).
type MCPServers struct {
	mu     sync.Mutex
	byName map[string]tools.MCPServer
	// users are, by server name, the open sessions that passed it.
	users    map[string]map[string]bool
	released []func(names []string)
	closers  []func()
	closed   bool
}

// All is a copy of the set.
func (m *MCPServers) All() map[string]tools.MCPServer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.byName)
}

// OnRelease registers stop, which the folder calls with the names of the
// servers that left the set because the last open session that passed
// them closed: their processes must stop (a later session passing one
// again starts it anew).
func (m *MCPServers) OnRelease(stop func(names []string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.released = append(m.released, stop)
}

// OnClose registers stop, which the folder calls once as it closes (the
// client disconnected, or autarch acp was told to exit): every MCP server
// started for the folder must stop before it returns. Registered after
// the folder closed, stop runs at once.
func (m *MCPServers) OnClose(stop func()) {
	m.mu.Lock()
	if !m.closed {
		m.closers = append(m.closers, stop)
		m.mu.Unlock()
		return
	}
	m.mu.Unlock()
	stop()
}

// use joins the servers a session passed to the set and counts the
// session among their users; none is added when one of them names a
// server the set has with another definition.
func (m *MCPServers) use(session string, servers map[string]tools.MCPServer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if had, ok := m.byName[name]; ok && !reflect.DeepEqual(had, servers[name]) {
			return fmt.Errorf("MCP server %q is already defined for this folder as %s, and this session passes %s: the sessions of a folder share their MCP servers, so give this one another name, or pass the same definition",
				name, describeServer(had), describeServer(servers[name]))
		}
	}
	if m.byName == nil {
		m.byName, m.users = map[string]tools.MCPServer{}, map[string]map[string]bool{}
	}
	for name, cfg := range servers {
		if m.users[name] == nil {
			m.byName[name], m.users[name] = cfg, map[string]bool{}
		}
		m.users[name][session] = true
	}
	return nil
}

// drop ends a session's use of its servers: those no other open session
// passed leave the set, and are returned for release.
func (m *MCPServers) drop(session string) (gone []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, users := range m.users {
		if !users[session] {
			continue
		}
		delete(users, session)
		if len(users) == 0 {
			delete(m.users, name)
			delete(m.byName, name)
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return gone
}

// release has the servers that left the set stopped.
func (m *MCPServers) release(names []string) {
	if len(names) == 0 {
		return
	}
	m.mu.Lock()
	stops := slices.Clone(m.released)
	m.mu.Unlock()
	for _, stop := range stops {
		stop(names)
	}
}

// close empties the set and has every server started for the folder
// stopped, all at once; it returns when they are.
func (m *MCPServers) close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	closers := m.closers
	m.closers, m.byName, m.users = nil, nil, nil
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, stop := range closers {
		wg.Go(stop)
	}
	wg.Wait()
}

// describeServer names a server's transport and command or URL (never its
// environment or headers, which may hold secrets).
func describeServer(s tools.MCPServer) string {
	var d string
	switch s.Type {
	case "stdio":
		d = fmt.Sprintf("stdio %q", strings.Join(append([]string{s.Command}, s.Args...), " "))
	default:
		d = fmt.Sprintf("%s %s", s.Type, s.URL)
	}
	if len(s.Env) > 0 || len(s.Headers) > 0 {
		d += " (with its own environment or headers)"
	}
	return d
}

// mcpServers is the configuration of the MCP servers a client passed (an
// "acp" transport, which tools/mcp cannot reach, is left out); a name
// given twice is refused.
func mcpServers(list []sdk.McpServer, log *slog.Logger) (map[string]tools.MCPServer, error) {
	out := map[string]tools.MCPServer{}
	headers := func(hs []sdk.HttpHeader) map[string]string {
		m := map[string]string{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for _, s := range list {
		var name string
		var cfg tools.MCPServer
		switch {
		case s.Stdio != nil:
			env := map[string]string{}
			for _, e := range s.Stdio.Env {
				env[e.Name] = e.Value
			}
			var args []string // nil when none: definitions compare equal
			if len(s.Stdio.Args) > 0 {
				args = s.Stdio.Args
			}
			name, cfg = s.Stdio.Name, tools.MCPServer{Type: "stdio", Command: s.Stdio.Command, Args: args, Env: env}
		case s.Http != nil:
			name, cfg = s.Http.Name, tools.MCPServer{Type: "http", URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			name, cfg = s.Sse.Name, tools.MCPServer{Type: "sse", URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		default:
			log.Warn("an MCP server the client passed is left out: only stdio, http and sse servers are supported")
			continue
		}
		if _, ok := out[name]; ok {
			return nil, invalidParams("mcpServers names %q twice: give each server its own name", name)
		}
		out[name] = cfg
	}
	return out, nil
}
