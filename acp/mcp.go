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
// the union of every session's, keyed by name. A folder's sessions share
// one engine, whose agents get them all; a name keeps its first
// definition, and a session passing another one for it is refused.
type MCPServers struct {
	mu     sync.Mutex
	byName map[string]tools.MCPServer
}

// All is a copy of the set.
func (m *MCPServers) All() map[string]tools.MCPServer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.byName)
}

// add joins servers to the set, or adds none when one of them names a
// server the set has with another definition.
func (m *MCPServers) add(servers map[string]tools.MCPServer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if had, ok := m.byName[name]; ok && !reflect.DeepEqual(had, servers[name]) {
			return fmt.Errorf("MCP server %q is already defined for this folder as %s, and this session passes %s: the sessions of a folder share their MCP servers, so give this one another name, or pass the same definition",
				name, describeServer(had), describeServer(servers[name]))
		}
	}
	if m.byName == nil {
		m.byName = map[string]tools.MCPServer{}
	}
	maps.Copy(m.byName, servers)
	return nil
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
