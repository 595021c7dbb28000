package main

import (
	"github.com/autarch-dev/autarch/swarm"
	"testing"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// Every tool an agent can be given declares its traits (effect and
// category): transports show calls from them, not from tables of names.
// A tool that fails here needs tools.DefineWith (or .declare inside
// package tools) with its effect and category.
func TestEveryToolDeclaresTraits(t *testing.T) {
	regs := map[string]func() (*tools.Registry, error){
		"every workflow tool": func() (*tools.Registry, error) { return registryFor("") },
		"job":                 func() (*tools.Registry, error) { return team.Registry(nil, team.Deps{}) },
		"catalog":             job.ToolCatalog,
		"swarm":               func() (*tools.Registry, error) { return swarm.Registry(nil, "explorer") },
	}
	for _, role := range tools.Roles {
		regs[role] = func() (*tools.Registry, error) { return registryFor(role) }
	}
	seen := 0
	for name, reg := range regs {
		r, err := reg()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, tool := range r.List() {
			seen++
			if tr := tool.Traits(); !tr.Valid() {
				t.Errorf("%s: tool %s declares no valid traits (%+v)", name, tool.Name(), tr)
			}
		}
	}
	if seen < 40 {
		t.Errorf("only %d tools checked", seen)
	}
}
