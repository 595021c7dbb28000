package mcp

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
)

// A server that changes its tools at runtime sends
// notifications/tools/list_changed; the next listing (the next agent
// session's tools) has the new list, without restarting the server.
func TestToolListChanged(t *testing.T) {
	m := userServers(t, map[string]tools.MCPServer{"live": misbehaving(t, 10)})
	names := func() []string { return toolNames(t, m, "pulsing") }
	before := names()
	if !slices.Contains(before, "mcp_live_env") || slices.Contains(before, "mcp_live_grown") {
		t.Fatalf("tools before = %v", before)
	}
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	pid := h.call("mcp_live_pid", `{"reason": "r"}`).Output
	if res := h.call("mcp_live_grow", `{"reason": "r"}`); res.Failed || res.Output != "grew" {
		t.Fatalf("grow = %+v", res)
	}
	testkit.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if after := names(); !slices.Contains(after, "mcp_live_grown") {
			return fmt.Errorf("tools after list_changed = %v, want grown added", after)
		}
		return nil
	})
	if after := names(); !slices.Contains(after, "mcp_live_grown") || slices.Contains(after, "mcp_live_env") {
		t.Fatalf("tools after list_changed = %v, want grown added and env removed", after)
	}
	h2 := newHarness(t, m, "pulsing", tools.ModeYolo)
	if res := h2.call("mcp_live_grown", `{"reason": "r"}`); res.Failed || res.Output != "grown answers" {
		t.Errorf("the new tool = %+v", res)
	}
	if res := h2.call("mcp_live_pid", `{"reason": "r"}`); res.Output != pid {
		t.Errorf("the server was restarted to refresh its list (pid %s, was %s)", res.Output, pid)
	}
	// Without a notification the list is not asked again.
	srv, _ := m.Server("live")
	if srv.stale.Load() {
		t.Error("still stale after the refresh")
	}
}
