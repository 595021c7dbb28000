package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
)

// This file holds the read-only queries of recent tool-call activity
// (autarch status): the latest calls of a workflow or a job and how many
// calls each tool had.

// RecentToolCalls lists a workflow's latest n tool calls over all its
// stages and pulses, sub-agents' calls included, oldest first (none when
// n <= 0).
func (o ops) RecentToolCalls(ctx context.Context, workflowID string, n int) ([]ToolCall, error) {
	if n <= 0 {
		return nil, nil
	}
	calls, err := queryAll(ctx, o, scanToolCall, "recent tool calls", `SELECT `+toolCallColumns+` FROM tool_calls
		WHERE run_id=? ORDER BY id DESC LIMIT ?`, workflowID, n)
	slices.Reverse(calls)
	return calls, err
}

// ToolCallCounts counts a workflow's tool calls (sub-agents' included) by
// tool name.
func (o ops) ToolCallCounts(ctx context.Context, workflowID string) (map[string]int, error) {
	return o.countByName(ctx, "tool calls", `SELECT name, COUNT(*) FROM tool_calls WHERE run_id=? GROUP BY name`, workflowID)
}

// JobCall is a job's tool call with the arguments the model sent, read
// from the assistant message that made the call (nil when that message is
// not stored, or the model gave the call no id).
type JobCall struct {
	JobToolCall
	Args json.RawMessage
}

// RecentJobToolCalls lists a job's latest n tool calls with their
// arguments, oldest first (none when n <= 0).
func (o ops) RecentJobToolCalls(ctx context.Context, jobID string, n int) ([]JobCall, error) {
	if n <= 0 {
		return nil, nil
	}
	// A call's arguments are in the latest assistant message made before
	// it started that carries its id (ids may repeat across resumes). The
	// n calls are picked first, so only their messages are looked up.
	calls, err := queryAll(ctx, o, func(row interface{ Scan(...any) error }) (JobCall, error) {
		var c JobCall
		var args sql.NullString
		err := row.Scan(&c.JobID, &c.CallID, &c.Name, &c.Reason, &c.Summary, &c.Outcome, &c.Failed, stampTo(&c.StartedAt), stampTo(&c.EndedAt), &args)
		if args.Valid {
			c.Args = json.RawMessage(args.String)
		}
		return c, err
	}, "recent job tool calls", `WITH c AS MATERIALIZED (SELECT * FROM tool_calls WHERE run_id=? ORDER BY id DESC LIMIT ?)
		SELECT c.run_id, c.call_id, c.name, c.reason, c.result_summary, c.outcome, c.failed, c.started_at, c.ended_at,
		(SELECT t.value -> '$.args' FROM messages m, json_each(m.data, '$.tool_calls') t
			WHERE m.run_id=c.run_id AND m.role='assistant' AND m.data IS NOT NULL AND m.created_at<=c.started_at
				AND c.call_id<>'' AND t.value ->> '$.id' = c.call_id
			ORDER BY m.id DESC LIMIT 1)
		FROM c ORDER BY c.id DESC`, jobID, n)
	slices.Reverse(calls)
	return calls, err
}

// JobToolCallCounts counts a job's tool calls by tool name.
func (o ops) JobToolCallCounts(ctx context.Context, jobID string) (map[string]int, error) {
	return o.countByName(ctx, "job tool calls", `SELECT name, COUNT(*) FROM tool_calls WHERE run_id=? GROUP BY name`, jobID)
}

// countByName runs a query of (name, count) rows into a map.
func (o ops) countByName(ctx context.Context, what, query string, args ...any) (map[string]int, error) {
	rows, err := o.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("count %s: %w", what, err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, fmt.Errorf("count %s: %w", what, err)
		}
		out[name] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count %s: %w", what, err)
	}
	return out, nil
}
