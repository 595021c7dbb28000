package job

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// metered is the job's model: it refuses a call once the job's token
// budget or iteration limit is spent (the run kernel's meter), and
// records every call's tokens and cost in the store as it happens.
type metered struct {
	r     *Runner
	inner agent.Model
	job   store.Job
	meter *run.Meter // counters as of the last call
}

func newMetered(r *Runner, inner agent.Model, j store.Job) *metered {
	return &metered{r: r, inner: inner, job: j, meter: run.NewMeter(budgetOf(j), spentOf(j))}
}

// budgetOf is a job's budget as recorded.
func budgetOf(j store.Job) run.Budget {
	return run.Budget{Tokens: j.TokenBudget, Iterations: j.IterationLimit}
}

// spentOf is what a job spent as recorded.
func spentOf(j store.Job) run.Spent {
	return run.Spent{Usage: run.Usage{PromptTokens: j.PromptTokens, CompletionTokens: j.CompletionTokens, Cost: j.Cost}, Iterations: j.Iterations}
}

func (m *metered) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	j := m.job
	var limit *run.LimitError
	if errors.As(m.meter.Check(), &limit) {
		more := m.r.cfg.Budget(modeOf(j))
		grant := more.Tokens
		if limit.Limit == run.LimitIterations {
			grant = int64(more.Iterations)
		}
		return agent.Response{}, &limitError{fmt.Sprintf("%v (%s mode); resume the job to grant it %d more", limit, j.Mode, grant)}
	}
	resp, err := m.inner.Complete(ctx, req, onText)
	if err != nil {
		return resp, err
	}
	u := resp.Usage
	used := run.UsageOf(u, m.r.cfg.Settings.Pricing)
	cost := used.Cost
	ctx = context.WithoutCancel(ctx)
	if err := m.r.store.AddJobUsage(ctx, j.ID, used.PromptTokens, used.CompletionTokens, cost); err != nil {
		return resp, err
	}
	m.meter.Record(used)
	m.r.emit(editor.JobEvent{Kind: "usage", JobID: j.ID, Text: fmt.Sprintf("%d prompt + %d completion tokens, $%.4f", u.PromptTokens, u.CompletionTokens, cost),
		Usage: &editor.UsageView{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Cost: cost}})
	return resp, nil
}

// checkKinds are the verification tools whose results a job records.
var checkKinds = map[string]string{"run_tests": "test", "run_lint": "lint"}

// recording wraps run_tests or run_lint (kind "test" or "lint"): each
// result is recorded with the job (the side panel and autarch status show
// the latest); wrapping commit_changes (kind ""), the checks of a refused
// or an accepted commit are.
type recording struct {
	tools.Tool
	h    *handle
	kind string
}

func (t recording) Run(ctx context.Context, s *tools.Session, args json.RawMessage) (tools.Result, error) {
	res, err := t.Tool.Run(ctx, s, args)
	if err != nil || !res.JSON {
		return res, err
	}
	if t.kind != "" {
		return res, t.h.recordCheck(ctx, t.Name(), t.kind, json.RawMessage(res.Output))
	}
	// commit_changes: the checks it ran or took from its cache, with
	// their results (those that failed a refused commit, those that
	// passed for an accepted one).
	var refused struct {
		CheckResults map[string]json.RawMessage `json:"checkResults"`
	}
	if json.Unmarshal([]byte(res.Output), &refused) == nil {
		for name, raw := range refused.CheckResults {
			if kind, ok := checkKinds[name]; ok {
				if err := t.h.recordCheck(ctx, name, kind, raw); err != nil {
					return res, err
				}
			}
		}
	}
	return res, nil
}

// recordCheck records a run_tests or run_lint result with the job; a
// result without a status is not one.
func (h *handle) recordCheck(ctx context.Context, tool, kind string, raw json.RawMessage) error {
	var out struct {
		Status     string `json:"status"`
		Passed     int    `json:"passed"`
		Failed     int    `json:"failed"`
		ErrorCount int    `json:"errorCount"`
		Warnings   int    `json:"warningCount"`
	}
	if json.Unmarshal(raw, &out) != nil || out.Status == "" {
		return nil
	}
	c := store.JobCheck{JobID: h.job.ID, Kind: kind, Status: out.Status, Passed: out.Passed, Failed: out.Failed,
		Summary: fmt.Sprintf("%d passed, %d failed", out.Passed, out.Failed)}
	if kind == "lint" {
		c.Failed, c.Summary = out.ErrorCount, fmt.Sprintf("%d errors, %d warnings", out.ErrorCount, out.Warnings)
	}
	if err := h.r.store.AddJobCheck(context.WithoutCancel(ctx), &c); err != nil {
		return err
	}
	h.r.emit(editor.JobEvent{Kind: "check", JobID: h.job.ID, Tool: tool, Status: out.Status, Text: c.Summary})
	return nil
}

// Validate keeps the wrapped tool's schema check.
func (t recording) Validate(args json.RawMessage) error {
	if v, ok := t.Tool.(interface{ Validate(json.RawMessage) error }); ok {
		return v.Validate(args)
	}
	return nil
}

// Cost keeps the wrapped tool's cost hint.
func (t recording) Cost() tools.Cost {
	c, _ := tools.CostOf(t.Tool)
	return c
}
