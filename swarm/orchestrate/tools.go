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
// project's hooks.
type agentTools struct {
	worktree string
	hooks    *tools.Hooks
	log      *slog.Logger

	mu      sync.Mutex
	sess    *tools.Session
	engines map[string]*tools.Engine
}

func newAgentTools(worktree string, hooks *tools.Hooks, log *slog.Logger) *agentTools {
	return &agentTools{worktree: worktree, hooks: hooks, log: log, engines: map[string]*tools.Engine{}}
}

// engine is the tool engine of agent (made once) and the session.
func (t *agentTools) engine(s *swarm.Swarm, agent string) (*tools.Engine, *tools.Session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess == nil {
		sess, err := tools.NewSession(tools.SessionConfig{Root: t.worktree, Mode: tools.ModeYolo})
		if err != nil {
			return nil, nil, fmt.Errorf("swarm tools' session in %s: %w", t.worktree, err)
		}
		t.sess = sess
	}
	if e, ok := t.engines[agent]; ok {
		return e, t.sess, nil
	}
	reg, err := swarm.Registry(s, agent)
	if err != nil {
		return nil, nil, err
	}
	e := tools.NewEngine(reg, t.hooks, t.log)
	t.engines[agent] = e
	return e, t.sess, nil
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
	var names []string
	for _, n := range swarm.ToolNames {
		if !readOnly || !isWrite(n) {
			names = append(names, n)
		}
	}
	return e.Registry().Schemas(names)
}

func (t *agentTools) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		t.sess.Close()
		t.sess = nil
	}
}
