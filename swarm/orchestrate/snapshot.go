package orchestrate

import (
	"context"
	"encoding/json"
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
	var keys struct {
		Keys []string `json:"keys"`
	}
	if err := call(ctx, eng, toolCtxKeys, map[string]any{"prefix": ""}, &keys); err != nil {
		return snap, err
	}
	for _, k := range keys.Keys {
		var e struct {
			Key     string          `json:"key"`
			Value   json.RawMessage `json:"value"`
			Version int64           `json:"version"`
		}
		if err := call(ctx, eng, toolCtxGet, map[string]any{"key": k}, &e); err != nil {
			return snap, err
		}
		var v any
		json.Unmarshal(e.Value, &v)
		snap.Context = append(snap.Context, editor.SwarmContextEntry{Key: k, Value: v, Version: e.Version})
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
