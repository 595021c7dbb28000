package tools

import (
	"encoding/json"
	"fmt"

	"github.com/autarch-dev/autarch/workspace/trust"
)

// MCPFile is the project's MCP configuration in the format other agents
// read: {"mcpServers": {NAME: {"command", "args", "env"} | {"type": "http", "url", "headers"}}}.
const MCPFile = trust.MCPFile

// ParseMCPFile reads the content of an .mcp.json (the project's, or the
// user's mcp.json, which has the same format).
func ParseMCPFile(name string, data []byte) (map[string]MCPServer, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var f struct {
		MCPServers map[string]MCPServer `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w (expected {\"mcpServers\": {NAME: {\"command\", \"args\", \"env\"} | {\"type\": \"http\", \"url\", \"headers\"}}})", name, err)
	}
	for n, s := range f.MCPServers {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("%s: server %s: %w", name, n, err)
		}
	}
	return f.MCPServers, nil
}

// MCPServers are the repository's MCP servers: ConfigFile's mcp.servers,
// then the project's .mcp.json (a name in both: ConfigFile's wins).
func (p Project) MCPServers() (map[string]MCPServer, error) {
	out, err := ParseMCPFile(MCPFile, p.Config.File(MCPFile))
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]MCPServer{}
	}
	for n, s := range p.Settings.MCP.Servers {
		out[n] = s
	}
	return out, nil
}
