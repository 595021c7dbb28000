package job

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// metered is the job's model: it refuses a call once the job's token
// budget or iteration limit is spent, and records every call's tokens and
// cost in the store as it happens.
type metered struct {
	r     *Runner
	inner agent.Model

	mu  sync.Mutex
	job store.Job // counters as of the last call
}

func (m *metered) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	m.mu.Lock()
	j := m.job
	m.mu.Unlock()
	switch {
	case j.IterationLimit > 0 && j.Iterations >= j.IterationLimit:
		return agent.Response{}, &limitError{fmt.Sprintf("iteration limit reached: %d model calls (%s mode); resume the job to grant it %d more", j.Iterations, j.Mode, m.r.cfg.Budget(modeOf(j)).Iterations)}
	case j.TokenBudget > 0 && j.Tokens() >= j.TokenBudget:
		return agent.Response{}, &limitError{fmt.Sprintf("token budget reached: %d of %d tokens (%s mode); resume the job to grant it %d more", j.Tokens(), j.TokenBudget, j.Mode, m.r.cfg.Budget(modeOf(j)).Tokens)}
	}
	resp, err := m.inner.Complete(ctx, req, onText)
	if err != nil {
		return resp, err
	}
	u := resp.Usage
	cost := m.r.wf.Settings.Pricing.Cost(u)
	ctx = context.WithoutCancel(ctx)
	if err := m.r.store.AddJobUsage(ctx, j.ID, int64(u.PromptTokens), int64(u.CompletionTokens), cost); err != nil {
		return resp, err
	}
	m.mu.Lock()
	m.job.Iterations++
	m.job.PromptTokens += int64(u.PromptTokens)
	m.job.CompletionTokens += int64(u.CompletionTokens)
	m.job.Cost += cost
	m.mu.Unlock()
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
