package orchestrate

import (
	"context"
	"fmt"
	"time"

	"github.com/autarch-dev/autarch/editor"
)

// Snapshot is a swarm as the side panel shows it: its state, the shared
// context's keys and values, and the queue (with leases and holders when
// the engine lists them).
func (o *Orchestrator) Snapshot(ctx context.Context, id string) (editor.SwarmSnapshot, error) {
	st, err := o.Load(id)
	if err != nil {
		return editor.SwarmSnapshot{}, err
	}
	snap := Summary(*st)
	eng, err := o.viewEngine(ctx, st)
	if err != nil {
		return snap, fmt.Errorf("open the swarm engine: %w", err)
	}
	if snap.Context, err = eng.Context(ctx); err != nil {
		return snap, err
	}
	if ql, ok := eng.(QueueLister); ok {
		if snap.Queue, err = ql.Queue(ctx); err != nil {
			return snap, err
		}
	}
	if snap.Queue == nil {
		snap.Queue = []editor.SwarmQueueItem{}
	}
	return snap, nil
}

// Summary is a swarm's state in the protocol's shape (without the shared
// context and queue, which live in the engine).
func Summary(st State) editor.SwarmSnapshot {
	snap := editor.SwarmSnapshot{ID: st.ID, Task: st.Task, Status: st.Status, Reason: st.Reason, Round: st.Round, Rounds: st.Rounds,
		Phase: st.Round, Stage: st.Stage, Arbiter: st.Arbiter, AllowWrite: st.AllowWrite, ReadOnly: st.ReadOnly, Branch: st.Branch,
		Worktree: st.Worktree, Agents: st.Agents, Proposals: st.Proposals, RateLimits: st.RateLimits, Commits: st.Commits,
		Context: []editor.SwarmContextEntry{}, Queue: []editor.SwarmQueueItem{}, UpdatedAt: st.UpdatedAt.Format(time.RFC3339)}
	if snap.Proposals == nil {
		snap.Proposals = []editor.SwarmProposal{}
	}
	if snap.RateLimits == nil {
		snap.RateLimits = []editor.SwarmRateLimitHit{}
	}
	if snap.Commits == nil {
		snap.Commits = []string{}
	}
	return snap
}

// viewEngine is the engine Snapshot reads a swarm with, opened once per
// swarm (the side panel refreshes often).
func (o *Orchestrator) viewEngine(ctx context.Context, st *State) (Engine, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if eng, ok := o.views[st.ID]; ok {
		return eng, nil
	}
	eng, err := o.cfg.Open(ctx, st.ID, st.Worktree, Policy{}) // a view: no tool call
	if err != nil {
		return nil, err
	}
	if o.views == nil {
		o.views = map[string]Engine{}
	}
	o.views[st.ID] = eng
	return eng, nil
}

// Close releases the engines Snapshot opened.
func (o *Orchestrator) Close() {
	o.mu.Lock()
	views := o.views
	o.views = nil
	o.mu.Unlock()
	for _, eng := range views {
		eng.Close()
	}
}
