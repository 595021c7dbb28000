package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// liveServers keeps the MCP managers the editor's sessions started, by
// repository top, so that the side panel shows their live state.
type liveServers struct {
	mu     sync.Mutex
	byRepo map[string]*mcp.Manager
}

func (l *liveServers) add(repo string, m *mcp.Manager) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byRepo == nil {
		l.byRepo = map[string]*mcp.Manager{}
	}
	l.byRepo[repo] = m
}

// of is the manager of the repository holding folder (nil: none started).
func (l *liveServers) of(folder string) *mcp.Manager {
	if real, err := filepath.EvalSymlinks(folder); err == nil {
		folder = real
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for repo, m := range l.byRepo {
		if rel, err := filepath.Rel(repo, folder); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return m
		}
	}
	return nil
}

// projectState is autarch/project for a folder: the live MCP servers of
// the session that opened it (or, before any did, the configured ones,
// none started) and the project rules found.
func (l *liveServers) projectState(_ context.Context, folder string) editor.ProjectState {
	var st editor.ProjectState
	rules, warnings := agent.ProjectRules(folder)
	for _, r := range rules {
		st.Rules = append(st.Rules, editor.RuleFileState{Path: r.Path, Size: r.Size, Applies: r.Applies})
	}
	st.Warnings = warnings
	m := l.of(folder)
	if m == nil {
		var err error
		if m, err = configuredServers(folder); err != nil {
			st.Warnings = append(st.Warnings, fmt.Sprintf("MCP servers: %v", err))
		}
		defer m.Close()
	}
	for _, s := range m.Statuses() {
		st.MCPServers = append(st.MCPServers, editor.MCPServerState{Name: s.Name, Transport: s.Transport, Origin: s.Origin, State: s.State, Tools: s.Tools, Error: s.Err})
	}
	return st
}

// configuredServers is a manager over folder's and the user's servers,
// none started.
func configuredServers(folder string) (*mcp.Manager, error) {
	store, err := trust.Open()
	if err != nil {
		return nil, err
	}
	p, err := tools.LoadProject(folder, store)
	if err != nil {
		return nil, err
	}
	user, err := mcp.UserFile()
	if err != nil {
		user = ""
	}
	return mcp.NewManager(mcp.Options{Project: p, UserFile: user})
}
