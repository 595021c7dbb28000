package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/tools"
)

// ToolNames are the swarm tools, in the spec's order.
var ToolNames = []string{
	"fs_list", "fs_read", "search_text", "fs_write",
	"ctx_put", "ctx_get", "ctx_keys",
	"coord_enqueue", "coord_next", "coord_status", "coord_claim", "coord_complete", "coord_extend",
}

var agentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// ValidAgent checks an agent name (it scopes leases and rate limits).
func ValidAgent(agent string) error {
	if !agentRE().MatchString(agent) {
		return fmt.Errorf("agent name %q: use 1 to 64 letters, digits, _ or - (e.g. Gemini)", agent)
	}
	return nil
}

// Tools returns the swarm tools bound to s, run as agent. Every tool is
// ReadOnly for the engine: none touches the workspace (fs_write only
// proposes), so they run at once, also in a dry run, without confirmation.
// Each call first takes a token from agent's bucket for the tool (Take).
func Tools(s *Swarm, agent string) ([]tools.Tool, error) {
	if err := ValidAgent(agent); err != nil {
		return nil, err
	}
	b := binding{s: s, agent: agent}
	return []tools.Tool{
		newFSList(b), newFSRead(b), newSearchText(b), newFSWrite(b),
		newCtxPut(b), newCtxGet(b), newCtxKeys(b),
		newCoordEnqueue(b), newCoordNext(b), newCoordStatus(b), newCoordClaim(b), newCoordComplete(b), newCoordExtend(b),
	}, nil
}

// Registry is Tools as a registry.
func Registry(s *Swarm, agent string) (*tools.Registry, error) {
	ts, err := Tools(s, agent)
	if err != nil {
		return nil, err
	}
	return tools.NewRegistry(ts...)
}

// EnvelopeArgs gives an envelope call's args (spec: no reason) the
// reason every tool requires, unless they have one; args that are not a
// JSON object are returned as they are (validation then explains).
func EnvelopeArgs(args json.RawMessage, reason string) json.RawMessage {
	var m map[string]json.RawMessage
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	if json.Unmarshal(args, &m) != nil || m == nil {
		return args
	}
	if _, ok := m["reason"]; ok {
		return args
	}
	if reason == "" {
		reason = "swarm tool call"
	}
	m["reason"], _ = json.Marshal(reason)
	out, _ := json.Marshal(m)
	return out
}

// binding is what every swarm tool runs against.
type binding struct {
	s     *Swarm
	agent string
}

// define makes a swarm tool with its traits (fs_write proposes an edit,
// the context and queue tools keep the swarm's own records) and its
// description (name.md): the rate limit first, then run, whose *Refusal
// errors are answered to the model as {error, code, message}.
func define[P any](b binding, traits tools.Traits, name string, run func(context.Context, *tools.Session, P) (any, error)) tools.Tool {
	return tools.DefineWith(traits, name, describe(name), tools.ReadOnly, func(ctx context.Context, sess *tools.Session, p P) (tools.Result, error) {
		limited, err := b.s.Take(ctx, b.agent, name)
		if res, ok, err := answer(nil, err); !ok {
			return res, err
		}
		if limited != nil {
			return tools.JSONResult(limited, true), nil
		}
		v, err := run(ctx, sess, p)
		res, _, err := answer(v, err)
		return res, err
	})
}

// answer turns a tool's value and error into its result; ok false when
// err was not nil.
func answer(v any, err error) (tools.Result, bool, error) {
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return tools.JSONResult(r, true), false, nil
	case err != nil:
		return tools.Result{}, false, err
	case v == nil:
		return tools.Result{}, true, nil
	}
	if res, ok := v.(tools.Result); ok {
		return res, true, nil
	}
	return tools.JSONResult(v, false), true, nil
}

// seconds turns an optional seconds argument into a duration (0: unset).
// A value beyond MaxLease stays beyond it (no overflow), so that the
// bounds check refuses it.
func seconds(p *int) time.Duration {
	switch {
	case p == nil:
		return 0
	case *p > int(MaxLease/time.Second):
		return MaxLease + time.Second
	case *p < 0:
		return -time.Second
	}
	return time.Duration(*p) * time.Second
}
