package mcp

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestUserMarksToolsReadOnly (001-68): most servers set no readOnlyHint;
// the user's mcp.json can vouch for tools as read-only (readOnlyTools),
// and read-only roles then get them. A repository's marking is ignored:
// repository configuration never loosens.
func TestUserMarksToolsReadOnly(t *testing.T) {
	tests := []struct {
		name     string
		origin   string
		marks    []string
		wantHang bool // hang has no readOnlyHint; pid has one
	}{
		{"unmarked", OriginUser, nil, false},
		{"marked by the user", OriginUser, []string{"hang"}, true},
		{"all marked by the user", OriginUser, []string{"*"}, true},
		{"marked by the repository", OriginRepository, []string{"hang"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := misbehaving(t, 5)
			cfg.ReadOnlyTools = tt.marks
			m := &Manager{servers: map[string]*Server{}, refused: map[string]tools.MCPServer{}, log: slog.New(slog.DiscardHandler)}
			m.add("bad", cfg, tt.origin, t.TempDir())
			t.Cleanup(func() { m.Close() })
			names := toolNames(t, m, "research")
			if !slices.Contains(names, "mcp_bad_pid") || slices.Contains(names, "mcp_bad_hang") != tt.wantHang {
				t.Errorf("research's tools = %v (hang wanted: %v)", names, tt.wantHang)
			}
		})
	}
}
