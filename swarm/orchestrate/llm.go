package orchestrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// complete makes a model call through the project's hooks as the agent
// loop's calls go (agent.Agent): pre_llm_call first, which may block the
// call (agent.ErrBlocked) or add context for the model, then
// post_llm_call with the usage. role names the caller to the hooks (the
// agent's role, "arbiter"); iteration counts its calls; warn hears of the
// hooks that failed otherwise (nil: dropped).
func complete(ctx context.Context, hooks *tools.Hooks, model agent.Model, req agent.Request, role string, iteration int, warn func(string)) (agent.Response, error) {
	warnAll := func(event string, ws []string) {
		for _, w := range ws {
			if warn != nil {
				warn(event + " hook: " + w)
			}
		}
	}
	pre := hooks.Fire(ctx, tools.EventPreLLMCall, "", "", map[string]any{
		"role": role, "model": req.Model, "messages": len(req.Messages), "iteration": iteration})
	warnAll(tools.EventPreLLMCall, pre.Warnings)
	if pre.Blocked {
		return agent.Response{}, fmt.Errorf("%w: %s", agent.ErrBlocked, strings.TrimPrefix(pre.BlockedMessage(), "Blocked by hook: "))
	}
	for _, c := range pre.Context {
		req.Messages = append(req.Messages, agent.Message{Role: agent.RoleSystem, Content: "[hook] " + c})
	}
	resp, err := model.Complete(ctx, req, nil)
	if err != nil {
		return resp, err
	}
	post := hooks.Fire(ctx, tools.EventPostLLMCall, "", "", map[string]any{
		"role": role, "model": req.Model, "usage": resp.Usage, "tool_calls": len(resp.Message.ToolCalls)})
	warnAll(tools.EventPostLLMCall, post.Warnings)
	return resp, nil
}
