package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/tools"
)

// roleSpec is the agent's role: the one its caller defines (Config.Spec),
// else the named role's.
func roleSpec(cfg Config) (RoleSpec, error) {
	if cfg.Spec != nil {
		if cfg.Spec.Name == "" || cfg.Spec.Prompt == "" {
			return RoleSpec{}, fmt.Errorf("a role defined by its caller needs a name and a prompt")
		}
		return *cfg.Spec, nil
	}
	return Spec(cfg.Role)
}

// HookedCall makes one model call through the project's hooks, as every
// agent's calls go (RunTurn, a swarm's arbiter): pre_llm_call first, which
// may block the call (ErrBlocked, with the hook's reason and name) or add
// context for the model, then post_llm_call with the usage. role names
// the caller to the hooks, iteration counts its calls; onText hears the
// streamed text (nil: none); warn hears of the hooks that failed
// otherwise (nil: dropped).
func HookedCall(ctx context.Context, hooks *tools.Hooks, model Model, req Request, role string, iteration int, onText func(string), warn func(tools.HookOutcome)) (Response, error) {
	if warn == nil {
		warn = func(tools.HookOutcome) {}
	}
	pre := hooks.Fire(ctx, tools.EventPreLLMCall, "", "", map[string]any{
		"role": role, "model": req.Model, "messages": len(req.Messages), "iteration": iteration})
	warn(pre)
	if pre.Blocked {
		return Response{}, fmt.Errorf("%w: %s", ErrBlocked, strings.TrimPrefix(pre.BlockedMessage(), "Blocked by hook: "))
	}
	if len(pre.Context) > 0 {
		req.Messages = append([]Message(nil), req.Messages...)
		for _, c := range pre.Context {
			req.Messages = append(req.Messages, Message{Role: RoleSystem, Content: "[hook] " + c})
		}
	}
	resp, err := model.Complete(ctx, req, onText)
	if err != nil {
		return resp, err
	}
	warn(hooks.Fire(ctx, tools.EventPostLLMCall, "", "", map[string]any{
		"role": role, "model": req.Model, "usage": resp.Usage, "tool_calls": len(resp.Message.ToolCalls)}))
	return resp, nil
}

// answerPending runs the calls of the transcript's last message that have
// no result yet (a conversation resumed after its process was killed
// between a call and its result) and returns the accepted terminal call,
// if any.
func (a *Agent) answerPending(ctx context.Context, actions *int) (*ToolCall, error) {
	last := len(a.transcript) - 1
	for last >= 0 && a.transcript[last].Role == RoleTool {
		last--
	}
	if last < 0 || a.transcript[last].Role != RoleAssistant || len(a.transcript[last].ToolCalls) == 0 {
		return nil, nil
	}
	answered := map[string]bool{}
	for _, m := range a.transcript[last+1:] {
		answered[m.ToolCallID] = true
	}
	var missing []ToolCall
	for _, c := range a.transcript[last].ToolCalls {
		if !answered[c.ID] {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	results, done, err := a.runCalls(ctx, missing, "", actions)
	if err != nil {
		return nil, err
	}
	a.appendMessages(results...)
	return done, nil
}
