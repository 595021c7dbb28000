package orchestrate

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
)

// agentTools runs the swarm's tools (swarm.Registry) bound to each agent,
// in one session rooted at the swarm's worktree (the file tools read it;
// fs_write only proposes), through the tool engine's pipeline with the
// project's hooks and guardrails.
type agentTools struct {
	worktree string
	policy   Policy
	log      *slog.Logger

	mu      sync.Mutex
	sess    *tools.Session
	engines map[string]*tools.Engine
}

func newAgentTools(worktree string, p Policy, log *slog.Logger) *agentTools {
	return &agentTools{worktree: worktree, policy: p, log: log, engines: map[string]*tools.Engine{}}
}

// worktreeSession is a session on the swarm's worktree that knows the
// protected paths (the guardrails'), as the workflow's sessions do: the agents'
// calls and the check of an approved proposal (applyProposal) judge a
// path alike (Session.WriteRefused).
func worktreeSession(worktree string, protected []string) (*tools.Session, error) {
	return filteredSession(worktree, protected, nil)
}

// filteredSession is worktreeSession whose secret filter is egress (nil:
// the session's own): the agents' model requests and events pass it.
func filteredSession(worktree string, protected []string, egress *tools.Egress) (*tools.Session, error) {
	sess, err := tools.NewSession(tools.SessionConfig{Root: worktree, Mode: tools.ModeYolo, Protected: protected, Egress: egress})
	if err != nil {
		return nil, fmt.Errorf("swarm tools' session in %s: %w", worktree, err)
	}
	return sess, nil
}

// engine is the tool engine of agent (made once) and the session.
func (t *agentTools) engine(s *swarm.Swarm, agent string) (*tools.Engine, *tools.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess == nil {
		sess, err := filteredSession(t.worktree, t.policy.Guardrails.ProtectedPaths(), t.policy.Egress)
		if err != nil {
			return nil, nil, err
		}
		t.sess = sess
	}
	if e, ok := t.engines[agent]; ok {
		return e, t.sess, nil
	}
	reg, err := guardedRegistry(s, agent)
	if err != nil {
		return nil, nil, err
	}
	reg.AddMissing(t.policy.Tools...)
	e := tools.NewEngine(reg, t.policy.Hooks, t.log).WithGuardrails(t.policy.Guardrails)
	t.engines[agent] = e
	return e, t.sess, nil
}

// offering is the engine an agent's loop (agent.Agent) offers the swarm's
// tools from (without fs_write in a read-only round) and fires its model
// calls' hooks through, and the session its calls run in; the calls
// themselves go through call.
func (t *agentTools) offering(s *swarm.Swarm, agent string, readOnly bool) (*tools.Engine, *tools.Session, error) {
	e, sess, err := t.engine(s, agent)
	if err != nil || !readOnly {
		return e, sess, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	key := agent + "\x00read-only"
	if ro, ok := t.engines[key]; ok {
		return ro, sess, nil
	}
	ro := e.Derive(e.Registry().Filter(t.names(true)))
	t.engines[key] = ro
	return ro, sess, nil
}

// guardedRegistry is the swarm's tools bound to agent, fs_write a write
// for the engine (proposing) so that the guardrails judge each proposal
// as they judge the workflow's write_file.
func guardedRegistry(s *swarm.Swarm, agent string) (*tools.Registry, error) {
	ts, err := swarm.Tools(s, agent)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if t.Name() == toolFsWrite {
			ts[i] = proposing{t}
		}
	}
	return tools.NewRegistry(ts...)
}

// proposing is fs_write as the orchestrator's engine sees it: a write
// (the guardrails check its path, where the path leads, the lines and
// files it changes and the code rules on its content), yet never asked
// about: it only proposes, and the arbiter decides.
type proposing struct{ tools.Tool }

func (proposing) Kind() tools.Kind               { return tools.Write }
func (proposing) Sensitive(json.RawMessage) bool { return false }

// Validate checks the arguments against fs_write's schema.
func (p proposing) Validate(args json.RawMessage) error {
	if v, ok := p.Tool.(interface{ Validate(json.RawMessage) error }); ok {
		return v.Validate(args)
	}
	return nil
}

// call runs tool as agent; args without a reason (the spec's envelope has
// none) get one.
func (t *agentTools) call(ctx context.Context, s *swarm.Swarm, agent, tool string, args json.RawMessage) (json.RawMessage, error) {
	e, sess, err := t.engine(s, agent)
	if err != nil {
		return nil, err
	}
	res, err := e.Call(ctx, sess, tool, swarm.EnvelopeArgs(args, agent+": "+tool))
	if err != nil {
		return nil, err
	}
	if json.Valid([]byte(res.Output)) {
		return json.RawMessage(res.Output), nil
	}
	if !res.Failed {
		// An MCP tool's text (the swarm's own tools answer JSON).
		b, _ := json.Marshal(map[string]any{"output": res.Output})
		return b, nil
	}
	b, _ := json.Marshal(map[string]any{"error": res.Output, "failed": res.Failed})
	return b, nil
}

// schemas are the swarm tools' functions (without fs_write in a read-only
// round), from the engine's own definitions.
func (t *agentTools) schemas(s *swarm.Swarm, readOnly bool) []tools.FunctionSchema {
	e, _, err := t.engine(s, Self)
	if err != nil {
		return nil
	}
	return e.Registry().Schemas(t.names(readOnly))
}

// names are the tools offered: the swarm's (without fs_write when
// readOnly), then the MCP servers' read-only ones.
func (t *agentTools) names(readOnly bool) []string {
	var names []string
	for _, n := range swarm.ToolNames {
		if !readOnly || !isWrite(n) {
			names = append(names, n)
		}
	}
	for _, x := range t.policy.Tools {
		names = append(names, x.Name())
	}
	return names
}

func (t *agentTools) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		t.sess.Close()
		t.sess = nil
	}
}
