package acp

import (
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/review"
	"github.com/autarch-dev/autarch/tools/team"
	"github.com/autarch-dev/autarch/tools/terminal"
)

// catalogOnce is every built-in tool, as cmd/autarch's catalog has them.
var catalogOnce = sync.OnceValues(func() (*tools.Registry, error) {
	reg, err := tools.Catalog()
	if err != nil {
		return nil, err
	}
	pulsing, err := agent.Registry("pulsing", tools.Deps{})
	if err != nil {
		return nil, err
	}
	job, err := team.Tools(nil, team.Deps{})
	if err != nil {
		return nil, err
	}
	reg.AddMissing(append(pulsing.List(), review.Unbound()...)...)
	for _, r := range tools.Roles {
		reg.AddMissing(terminal.ForRole(r)...)
	}
	reg.AddMissing(job...)
	return reg, nil
})

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
