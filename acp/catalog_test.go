package acp

import (
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/tools"
)

// catalogOnce is the transports' catalog of every built-in tool.
var catalogOnce = sync.OnceValues(job.ToolCatalog)

// testCatalog is every built-in tool, as cmd/autarch gives the agent.
func testCatalog(t *testing.T) *tools.Registry {
	t.Helper()
	reg, err := catalogOnce()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// catalogTool is the named tool of the test catalog (nil when unknown).
func catalogTool(t *testing.T, name string) tools.Tool {
	tool, _ := testCatalog(t).Get(name)
	return tool
}
