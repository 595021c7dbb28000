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
	eng, err := o.cfg.Open(ctx, st.ID, st.Worktree)
	if err != nil {
		return snap, fmt.Errorf("open the swarm engine: %w", err)
	}
	defer eng.Close()
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
