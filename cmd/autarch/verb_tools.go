package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

func toolsVerb() verb {
	return verb{
		name:    "tools",
		usage:   "autarch tools [--root DIR] [--agent ROLE] [--json]",
		summary: "list the tools (of one agent role) with descriptions and JSON Schemas",
		run:     runTools,
	}
}

func runTools(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("tools", io)
	role := fs.String("agent", "", "agent role: discussion, scoping, research, plan, preflight, pulsing, review or job (default: every tool)")
	asJSON := fs.Bool("json", false, "print the OpenAI function schemas as JSON")
	root := fs.String("root", ".", "workspace whose MCP servers' tools to list (with the user's)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	reg, err := registryFor(*role)
	if err != nil {
		return fail(io, "tools", 2, err)
	}
	project, servers, err := projectServers(io, "tools", *root)
	if err != nil {
		return fail(io, "tools", 1, err)
	}
	defer servers.Close()
	if *role == "job" {
		// The job's catalog offers the coding team's web_search itself.
		if reg, err = team.Registry(nil, team.Deps{Tools: tools.Deps{Web: webSearch(project, stderrWarn(io, "tools"))}}); err != nil {
			return fail(io, "tools", 1, err)
		}
	} else {
		withWeb(io, "tools", project, *role, reg)
	}
	withMCP(ctx, io, "tools", servers, *role, reg)
	if reg, err = project.Settings.Apply(reg, *role); err != nil {
		return fail(io, "tools", 1, err)
	}
	if *asJSON {
		return printJSON(io, reg.Schemas(nil))
	}
	printTools(io.out, reg)
	return 0
}

// registryFor returns a role's tools (with its structured output tools),
// or every tool when role is "".
func registryFor(role string) (*tools.Registry, error) {
	if role == "job" {
		return team.Registry(nil, team.Deps{})
	}
	if role != "" {
		return agent.Registry(role, tools.Deps{}, workflow.RoleExtras(role)...)
	}
	reg, err := tools.All(tools.Deps{})
	if err != nil {
		return nil, err
	}
	workflow.AddRoleTools(reg)
	return reg, nil
}

func printTools(w io.Writer, reg *tools.Registry) {
	for i, t := range reg.List() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "## %s\n\n%s\n", t.Name(), t.Description())
		if tr := t.Traits(); tr.Valid() {
			fmt.Fprintf(w, "Category: %s (%s); effect: %s\n", tr.Category, tr.Category.Risk(), tr.Effect)
		}
		if c, ok := tools.CostOf(t); ok && !tools.CostDescribed(t) {
			fmt.Fprintf(w, "%s\n", c)
		}
		var schema any
		json.Unmarshal(t.Schema(), &schema)
		b, _ := json.MarshalIndent(schema, "", "  ")
		fmt.Fprintf(w, "Parameters:\n%s\n", b)
	}
}
