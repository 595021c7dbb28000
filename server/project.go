package server

import (
	"context"
	"encoding/json"

	"github.com/autarch-dev/autarch/editor"
)

// project answers autarch/project: the first workspace folder's MCP
// servers and project rules (cmd/autarch wires what reads them).
func (s *Server) project(ctx context.Context, _ json.RawMessage) (any, error) {
	s.mu.Lock()
	var folder string
	if len(s.folders) > 0 {
		folder = s.folders[0]
	}
	s.mu.Unlock()
	st := editor.ProjectState{MCPServers: []editor.MCPServerState{}, Rules: []editor.RuleFileState{}, Warnings: []string{}}
	if folder == "" {
		st.Warnings = append(st.Warnings, "no workspace folder is open: MCP servers and project rules are read from the first folder")
		return st, nil
	}
	if s.cfg.Project == nil {
		return st, nil
	}
	got := s.cfg.Project(ctx, folder)
	if got.MCPServers != nil {
		st.MCPServers = got.MCPServers
	}
	if got.Rules != nil {
		st.Rules = got.Rules
	}
	st.Warnings = append(st.Warnings, got.Warnings...)
	return st, nil
}
