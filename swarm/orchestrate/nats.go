package orchestrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
)

// natsEngine is the swarm engine of package swarm (NATS JetStream) as the
// orchestrator's Engine: the swarm's tools bound to each agent, run in a
// session rooted at the swarm's worktree.
type natsEngine struct {
	s     *swarm.Swarm
	tools *agentTools
}

// NATS opens swarms on the project's NATS connection c; their file
// tools read the swarm's worktree, and every call goes through the policy.
func NATS(c *swarm.Conn, opts swarm.Options, log *slog.Logger) OpenEngine {
	return func(ctx context.Context, id, worktree string, p Policy) (Engine, error) {
		s, err := swarm.Open(ctx, c, id, opts)
		if err != nil {
			return nil, err
		}
		return &natsEngine{s: s, tools: newAgentTools(worktree, p, log)}, nil
	}
}

func (e *natsEngine) Call(ctx context.Context, agent, tool string, args json.RawMessage) (json.RawMessage, error) {
	return e.tools.call(ctx, e.s, agent, tool, args)
}

func (e *natsEngine) Schemas(readOnly bool) []tools.FunctionSchema {
	return e.tools.schemas(e.s, readOnly)
}

func (e *natsEngine) Agent(agent string, readOnly bool) (*tools.Engine, *tools.Session, error) {
	return e.tools.offering(e.s, agent, readOnly)
}

func (e *natsEngine) Close() error {
	e.tools.close()
	return nil
}

func (e *natsEngine) SetPhase(ctx context.Context, phase int) error {
	return e.s.SetPhase(ctx, int64(phase))
}

func (e *natsEngine) Context(ctx context.Context) ([]editor.SwarmContextEntry, error) {
	keys, err := e.s.Keys(ctx, "")
	if err != nil {
		return nil, err
	}
	out := []editor.SwarmContextEntry{}
	for _, k := range keys {
		en, err := e.s.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		var v any
		json.Unmarshal(en.Value, &v)
		out = append(out, editor.SwarmContextEntry{Key: k, Value: v, Version: int64(en.Version)})
	}
	return out, nil
}

func (e *natsEngine) Proposals(ctx context.Context) ([]Proposal, error) {
	return e.s.Pending(ctx)
}

func (e *natsEngine) Resolve(ctx context.Context, p editor.SwarmProposal, by string) error {
	err := e.s.Decide(ctx, swarm.Decision{ProposalID: p.ID, Path: p.Path, Action: p.Action, Notes: p.Notes, By: by, Applied: p.Applied})
	var r *swarm.Refusal
	if errors.As(err, &r) && r.Err == swarm.ErrAlreadyDone {
		return nil // recorded before a crash
	}
	if err != nil {
		return fmt.Errorf("record the decision on %s: %w", p.Path, err)
	}
	return nil
}

// Queue lists the queue's items with their leases and holders.
func (e *natsEngine) Queue(ctx context.Context) ([]editor.SwarmQueueItem, error) {
	items, err := e.s.Items(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]editor.SwarmQueueItem, 0, len(items))
	for _, it := range items {
		q := editor.SwarmQueueItem{ID: it.ID, Kind: it.Kind, Status: it.Status}
		if it.Status == swarm.StatusClaimed {
			q.Holder, q.LeaseUntil = it.ClaimedBy, it.LeaseUntil.UTC().Format(time.RFC3339)
		}
		out = append(out, q)
	}
	return out, nil
}

// ConnectNATS connects to the project's NATS (AUTARCH_NATS_URL, else the
// embedded server the project's processes share, under stateDir) with the
// repository configuration's rate limits (AUTARCH_SWARM_RATE overrides
// them); close ends the connection.
func ConnectNATS(ctx context.Context, stateDir string, rate tools.SwarmConfig, log *slog.Logger) (open OpenEngine, close func(), err error) {
	opts, err := swarm.OptionsFor(rate)
	if err != nil {
		return nil, nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	copts := swarm.ConnOptionsFromEnv(stateDir)
	copts.Logger = log
	c, err := swarm.Connect(ctx, copts)
	if err != nil {
		return nil, nil, err
	}
	return NATS(c, opts, log), func() { c.Close() }, nil
}
