package agent

import (
	"context"
	"fmt"

	"github.com/autarch-dev/autarch/tools"
)

// Sub-agent kinds of dispatch_subagent.
var subagentPrompts = map[string]string{
	"explore": `You are an exploration sub-agent. Investigate the task in the codebase with the read-only tools and answer with a concise, factual summary: what you found, where (path:line), and what it means for the task. You cannot change anything.`,
	"test":    `You are a test sub-agent. Run the project's relevant tests or checks for the task with shell (read-only otherwise) and answer with a concise summary: what you ran, what passed, what failed and why (with the key output lines). Do not change any file.`,
	"review":  `You are a review sub-agent. Review the code the task names with the read-only tools and answer with a concise list of concrete problems (path:line, severity, why), or say that you found none.`,
}

// SubagentDeps is what dispatch_subagent needs to start sub-agents.
type SubagentDeps struct {
	Model     Model
	ModelName string
	Meter     *Meter
	Pricing   Pricing
	Events    func(Event)
	// MaxIterations per sub-agent run (default 15).
	MaxIterations int
	JSONEnvelope  bool
}

type dispatchParams struct {
	Reason string `json:"reason"`
	Agent  string `json:"agent" jsonschema:"Which sub-agent: explore (read-only investigation), test (runs tests or checks), review (read-only review)"`
	Task   string `json:"task" jsonschema:"What the sub-agent must find out or check; it sees nothing of your conversation, so say everything it needs"`
}

const dispatchDesc = `Delegate a sub-task to a sub-agent with its own, isolated context: explore (read-only investigation), test (runs tests or checks with shell, changes nothing) or review (read-only review).
The sub-agent does not see your conversation: describe the task completely. It returns a summary of what it found.
Use it to keep your own context small when a question needs much reading.`

// NewDispatchTool makes dispatch_subagent.
func NewDispatchTool(d SubagentDeps) tools.Tool {
	return tools.Define("dispatch_subagent", dispatchDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p dispatchParams) (tools.Result, error) {
		prompt, ok := subagentPrompts[p.Agent]
		if !ok {
			return tools.OpErrorResult(fmt.Sprintf("Unknown sub-agent %q: use explore, test or review", p.Agent)), nil
		}
		if p.Task == "" {
			return tools.OpErrorResult("task is required: describe what the sub-agent must do"), nil
		}
		summary, err := runSubagent(ctx, d, s, p.Agent, prompt, p.Task)
		if err != nil {
			return tools.OpErrorResult("sub-agent failed: " + err.Error()), nil
		}
		return tools.JSONResult(map[string]any{"success": true, "agent": p.Agent, "summary": summary}, false), nil
	})
}

// runSubagent runs one isolated turn over the parent's root.
func runSubagent(ctx context.Context, d SubagentDeps, parent *tools.Session, kind, prompt, task string) (string, error) {
	role := "research" // read-only base tools
	if kind == "test" {
		role = "preflight" // base tools + shell
	}
	reg, err := tools.ForRole(role, tools.Deps{})
	if err != nil {
		return "", err
	}
	names := []string{"semantic_search", "read_file", "list_directory", "glob_search", "grep"}
	if kind == "test" {
		names = append(names, "shell")
	}
	reg = reg.Filter(names)
	cfg := parent.Config()
	sess, err := tools.NewSession(tools.SessionConfig{Root: cfg.Root, Role: role, Mode: tools.ModeYolo, Search: cfg.Search, AllowedOnly: kind == "test",
		SensitivePaths: cfg.SensitivePaths, Commands: cfg.Commands, GitCommonDir: cfg.GitCommonDir, Protected: cfg.Protected})
	if err != nil {
		return "", err
	}
	defer sess.Close()
	maxIter := d.MaxIterations
	if maxIter <= 0 {
		maxIter = 15
	}
	meter := d.Meter
	if meter == nil {
		meter = NewMeter(0)
	}
	a := &Agent{
		cfg: Config{Role: "subagent-" + kind, Model: d.Model, ModelName: d.ModelName, Engine: tools.NewEngine(reg, nil, nil), Session: sess,
			Events: d.Events, MaxIterations: maxIter, ContextWindow: 128000, Meter: meter, Pricing: d.Pricing, JSONEnvelope: d.JSONEnvelope},
		spec: RoleSpec{Name: "subagent-" + kind, Prompt: prompt + "\n" + sharedRules},
	}
	out, err := a.RunTurn(ctx, task)
	if err != nil {
		return "", err
	}
	switch out.Kind {
	case OutcomeText:
		return out.Text, nil
	case OutcomeBudget, OutcomeFailed:
		return "", fmt.Errorf("%s", out.Text)
	}
	return out.Text, nil
}
