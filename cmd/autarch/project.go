package main

import (
	"fmt"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// loadProject reads the hooks and guardrails of the workspace at root for a
// verb that runs tools: guardrails always, hooks only from configuration
// the user trusts; ignored configuration is reported on stderr.
func loadProject(io stdio, verb, root string) (tools.Project, error) {
	store, err := trust.Open()
	if err != nil {
		return tools.Project{}, err
	}
	p, err := tools.LoadProject(root, store)
	if err != nil {
		return tools.Project{}, err
	}
	if msg := p.Untrusted(); msg != "" {
		fmt.Fprintf(io.err, "autarch %s: %s\n", verb, msg)
	}
	return p, nil
}
