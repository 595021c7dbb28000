package store

import (
	"context"
	"time"
)

// RunRecord is a run of any kind as the runs table keeps it (the run
// kernel's identity, agent/run): its id, its kind (workflow, job, swarm)
// and when it was created. Messages and tool calls are keyed by its id.
type RunRecord struct {
	ID        string
	Kind      string
	CreatedAt time.Time
}

// Runs lists every run, oldest first.
func (o ops) Runs(ctx context.Context) ([]RunRecord, error) {
	return queryAll(ctx, o, func(row interface{ Scan(...any) error }) (RunRecord, error) {
		var r RunRecord
		err := row.Scan(&r.ID, &r.Kind, stampTo(&r.CreatedAt))
		return r, err
	}, "runs", `SELECT id, kind, created_at FROM runs ORDER BY created_at, id`)
}
