package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

//go:embed dispatch_subagent.md
var dispatchDesc string

// Sub-agent types of dispatch_subagent (spec/tool-engine.md).
const (
	SubagentExplore = "explore"
	SubagentTest    = "test"
	SubagentReview  = "review"
)

// subagentPrompts are the sub-agents' system prompts, by type.
var subagentPrompts = map[string]string{
	SubagentExplore: `You are an exploration sub-agent. Investigate the task in the codebase with the read-only tools and answer with a concise, factual summary: what you found, where (path:line), and what it means for the task. You cannot change anything.`,
	SubagentTest:    `You are a test sub-agent. Run the project's relevant tests or checks for the task and answer with a concise summary: what you ran, what passed, what failed and why (with the key output lines). Only commands classified safe or dev run; you cannot change any file.`,
	SubagentReview:  `You are a review sub-agent. Review the code the task names with the read-only tools and answer with a concise list of concrete problems (path:line, severity, why), or say that you found none. You cannot change anything.`,
}

// subagentReadTools are every sub-agent's tools (the spec's read_file,
// list_files, search_code, grep, find_files in Autarch's names).
var subagentReadTools = []string{"semantic_search", "read_file", "list_directory", "glob_search", "grep"}

// subagentTestTools are what the test sub-agent adds: commands, run in
// the sandbox with allowed_only.
var subagentTestTools = []string{"shell", "run_tests", "run_lint"}

// subagentTypes are the sub-agent types a role may dispatch: Pulsing all
// three, Research the read-only ones; other roles none.
func subagentTypes(role string) []string {
	switch role {
	case Pulsing:
		return []string{SubagentExplore, SubagentTest, SubagentReview}
	case Research:
		return []string{SubagentExplore, SubagentReview}
	}
	return nil
}

// subagentMaxIterations caps the model calls of one sub-agent run.
const subagentMaxIterations = 15

type dispatchParams struct {
	Reason    string `json:"reason"`
	Task      string `json:"task" jsonschema:"The sub-task: what the sub-agent must find out, run or review. It sees nothing of your conversation, so say everything it needs"`
	AgentType string `json:"agent_type" jsonschema:"Which sub-agent: explore (read-only investigation), test (runs tests or checks) or review (read-only review)"`
	Context   string `json:"context,omitempty" jsonschema:"Additional context for the sub-agent: files, findings or constraints it should know"`
}

// NewDispatchTool makes dispatch_subagent for a role; ok is false for
// roles that dispatch no sub-agent. The sub-agent inherits everything from
// the agent whose call runs it: model, budget meter, pricing, hooks,
// guardrails, secret gate, dry-run, the command sandbox; its activity is
// reported through the parent's events, marked with the dispatch call.
func NewDispatchTool(role string) (tools.Tool, bool) {
	types := subagentTypes(role)
	if len(types) == 0 {
		return nil, false
	}
	inner := tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryMeta}, "dispatch_subagent", dispatchDesc, tools.ReadOnly, func(ctx context.Context, s *tools.Session, p dispatchParams) (tools.Result, error) {
		return dispatch(ctx, role, types, p)
	})
	var schema map[string]any
	if err := json.Unmarshal(inner.Schema(), &schema); err != nil {
		panic(fmt.Sprintf("dispatch_subagent schema: %v", err)) // a programming error, caught by every test
	}
	props, _ := schema["properties"].(map[string]any)
	if at, ok := props["agent_type"].(map[string]any); ok {
		at["enum"] = types
		at["description"] = "Which sub-agent: " + strings.Join(typeHelp(types), ", ")
	}
	// The schema shown lists only the role's types; calls are validated
	// without the enum, so that another type gets a result saying why.
	raw, _ := json.Marshal(schema)
	return tools.WithSchema(inner, raw), true
}

// typeHelp describes each type for the schema.
func typeHelp(types []string) []string {
	help := map[string]string{SubagentExplore: "explore (read-only investigation)", SubagentTest: "test (runs tests or checks, changes nothing)", SubagentReview: "review (read-only review)"}
	out := make([]string, len(types))
	for i, t := range types {
		out[i] = help[t]
	}
	return out
}

// dispatch checks a call and runs its sub-agent.
func dispatch(ctx context.Context, role string, types []string, p dispatchParams) (tools.Result, error) {
	if !slices.Contains(types, p.AgentType) {
		if _, known := subagentPrompts[p.AgentType]; known {
			return tools.OpErrorResult(fmt.Sprintf("agent_type %q is not available to the %s agent, which is read-only: use %s", p.AgentType, role, strings.Join(types, " or "))), nil
		}
		return tools.OpErrorResult(fmt.Sprintf("Unknown agent_type %q: use %s", p.AgentType, strings.Join(types, ", "))), nil
	}
	if strings.TrimSpace(p.Task) == "" {
		return tools.OpErrorResult("task is required: describe what the sub-agent must do"), nil
	}
	parent, ok := parentFrom(ctx)
	if !ok {
		return tools.OpErrorResult("dispatch_subagent runs only inside an agent's turn: call it from an agent"), nil
	}
	summary, err := parent.agent.runSubagent(ctx, parent.callID, p)
	var refused *subagentRefusal
	switch {
	case errors.As(err, &refused):
		return tools.OpErrorResult(refused.msg), nil
	case ctx.Err() != nil:
		return tools.Result{}, err
	case err != nil:
		return tools.OpErrorResult("the sub-agent failed: " + err.Error()), nil
	}
	return tools.JSONResult(map[string]any{"success": true, "agent_type": p.AgentType, "summary": summary}, false), nil
}

// subagentRefusal is a sub-agent that cannot run for a reason the model
// can act on.
type subagentRefusal struct{ msg string }

func (r *subagentRefusal) Error() string { return r.msg }

// parentCall is the agent and the tool call a tool runs under.
type parentCall struct {
	agent  *Agent
	callID string
}

type parentKey struct{}

// withParent returns ctx carrying the agent and call that run a tool.
func withParent(ctx context.Context, a *Agent, callID string) context.Context {
	return context.WithValue(ctx, parentKey{}, parentCall{agent: a, callID: callID})
}

func parentFrom(ctx context.Context) (parentCall, bool) {
	p, ok := ctx.Value(parentKey{}).(parentCall)
	return p, ok && p.agent != nil
}

// runSubagent runs one sub-agent turn, isolated from a's conversation,
// over a's root with a's tools (read-only ones, plus commands for test,
// plus the MCP tools read-only roles get).
func (a *Agent) runSubagent(ctx context.Context, callID string, p dispatchParams) (string, error) {
	names := slices.Clone(subagentReadTools)
	if p.AgentType == SubagentTest {
		names = append(names, subagentTestTools...)
	}
	names = append(names, readOnlyServerTools(a.cfg.Engine.Registry())...)
	reg := a.cfg.Engine.Registry().Filter(names)
	if p.AgentType == SubagentTest && !reg.Has("shell") {
		return "", &subagentRefusal{"the test sub-agent cannot run: commands are turned off (commands.enabled is false in .autarch/config.yaml)"}
	}
	// The parent's session configuration (root, secret gate, sandbox,
	// dry-run, …), without confirmations (the spec's yolo: sub-agents
	// change nothing) and with allowed_only.
	sc := a.cfg.Session.Config()
	sc.Mode, sc.Editor, sc.AllowedOnly, sc.Workflow, sc.AllowDelete = tools.ModeYolo, nil, true, false, false
	sess, err := tools.NewSession(sc)
	if err != nil {
		return "", fmt.Errorf("sub-agent session: %w", err)
	}
	defer sess.Close()
	sess.SetBaselines(a.cfg.Session.Baselines())
	name := "subagent-" + p.AgentType
	parentEvents := a.cfg.Events
	sub := &Agent{
		cfg: Config{Role: name, Model: a.cfg.Model, ModelName: a.cfg.ModelName, Engine: a.cfg.Engine.Derive(reg), Session: sess,
			MaxIterations: subagentMaxIterations, ContextWindow: a.cfg.ContextWindow, Meter: a.cfg.Meter, Pricing: a.cfg.Pricing,
			JSONEnvelope: a.cfg.JSONEnvelope, Workflow: a.cfg.Workflow, SessionID: newSessionID(),
			Events: func(e Event) {
				if parentEvents == nil {
					return
				}
				if e.Parent == "" {
					e.Parent, e.Subagent = callID, p.AgentType
				}
				parentEvents(e)
			}},
		spec: RoleSpec{Name: name, Prompt: subagentPrompts[p.AgentType] + "\n" + sharedRules},
	}
	// The sub-agent's hooks see it as its own agent and session.
	hc := tools.HookContextFrom(ctx)
	ctx = tools.WithHookContext(ctx, tools.HookContext{Workflow: hc.Workflow})
	out, err := sub.RunTurn(ctx, subagentInput(p))
	a.addDelegated(out.Usage)
	if err != nil {
		return "", err
	}
	switch out.Kind {
	case OutcomeBudget, OutcomeFailed:
		return "", errors.New(out.Text)
	}
	return out.Text, nil
}

// serverTool is a tool an MCP server provides (tools/mcp.Tool): ReadOnly
// is the rule the read-only roles get such tools by (the server's
// readOnlyHint, or the user's marking in their mcp.json).
type serverTool interface {
	tools.Tool
	Original() string
	ReadOnly() bool
}

// readOnlyServerTools are the MCP tools of reg a sub-agent gets: those
// read-only by the main roles' rule. Sub-agents change nothing, so a
// server's other tools stay with the agent that dispatched them.
func readOnlyServerTools(reg *tools.Registry) []string {
	var names []string
	for _, t := range reg.List() {
		if st, ok := t.(serverTool); ok && st.ReadOnly() {
			names = append(names, t.Name())
		}
	}
	return names
}

// addDelegated counts a sub-agent's usage in the current turn's.
func (a *Agent) addDelegated(u Usage) {
	a.delegatedMu.Lock()
	a.delegated = a.delegated.Add(u)
	a.delegatedMu.Unlock()
}

// takeDelegated returns and resets the sub-agents' usage.
func (a *Agent) takeDelegated() Usage {
	a.delegatedMu.Lock()
	defer a.delegatedMu.Unlock()
	u := a.delegated
	a.delegated = Usage{}
	return u
}

// subagentInput is the sub-agent's only message: the task and its context.
func subagentInput(p dispatchParams) string {
	if strings.TrimSpace(p.Context) == "" {
		return p.Task
	}
	return p.Task + "\n\nContext:\n" + p.Context
}
