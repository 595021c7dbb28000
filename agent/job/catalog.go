package job

import (
	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// ToolCatalog is every built-in tool once, by name: the workflow's (with
// the web tools, their structured output and review tools, and
// dispatch_subagent), then the job's that have names of their own.
// Transports describe calls from it (their kind, the files they touch).
func ToolCatalog() (*tools.Registry, error) {
	reg, err := tools.Catalog()
	if err != nil {
		return nil, err
	}
	workflow.AddRoleTools(reg)
	pulsing, err := agent.Registry(agent.Pulsing, tools.Deps{})
	if err != nil {
		return nil, err
	}
	jobTools, err := team.Tools(nil, team.Deps{})
	if err != nil {
		return nil, err
	}
	reg.AddMissing(append(pulsing.List(), jobTools...)...)
	return reg, nil
}
