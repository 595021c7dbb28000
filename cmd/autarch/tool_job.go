package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// cliJob is the ad-hoc job `autarch tool --agent job` gives the coding
// team's tools (003-45): an id, a mode and a ToolContext like a running
// job's, with what they record said on stderr (not stored: there is no
// job in the store) and escalations asked in the terminal.
type cliJob struct {
	id   string
	mode team.Mode
	ask  editor.Client
	log  io.Writer

	mu             sync.Mutex
	analyses, plan int
}

var _ team.Job = (*cliJob)(nil)

// newCLIJob makes an ad-hoc job in mode ("mechanic" or "genius").
func newCLIJob(mode string, ask editor.Client, log io.Writer) (*cliJob, error) {
	m := team.Mode(mode)
	if m != team.Mechanic && m != team.Genius {
		return nil, fmt.Errorf("unknown job mode %q: use mechanic or genius", mode)
	}
	b := make([]byte, 8)
	rand.Read(b)
	return &cliJob{id: "cli" + hex.EncodeToString(b), mode: m, ask: ask, log: log}, nil
}

// toolContext is the ToolContext of the job's calls in root (none
// without a job).
func (j *cliJob) toolContext(root string) tools.ToolContext {
	if j == nil {
		return tools.ToolContext{}
	}
	return tools.ToolContext{JobID: j.id, TraceID: j.id, Mode: string(j.mode), RepoPath: root}
}

func (j *cliJob) ID() string      { return j.id }
func (j *cliJob) Mode() team.Mode { return j.mode }

// BaseCommit: a job of `autarch tool` works on the user's own tree, whose
// committed attributes are the user's.
func (j *cliJob) BaseCommit() string { return "HEAD" }

func (j *cliJob) BranchCreated(_ context.Context, branch, base string) error {
	fmt.Fprintf(j.log, "autarch tool: job %s is on %s (from %s)\n", j.id, branch, base)
	return nil
}

func (j *cliJob) RecordAnalysis(context.Context, team.Analysis) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.analyses++
	return fmt.Sprintf("%s-analysis-%d", j.id, j.analyses), nil
}

func (j *cliJob) SavePlan(context.Context, team.Plan) (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.plan++
	return fmt.Sprintf("%s-plan-%d", j.id, j.plan), nil
}

// Escalate asks in the terminal; when no one can be asked, the answer is
// no, with the reason as feedback.
func (j *cliJob) Escalate(ctx context.Context, e team.Escalation) (string, bool, string, error) {
	id := j.id + "-escalation"
	v, err := j.ask.Approve(ctx, editor.Approval{Kind: "escalation", Title: "The job asks for a human review", Detail: e.Reason, Reason: e.Reason})
	if errors.Is(err, editor.ErrNoTTY) {
		return id, false, "no one could be asked: run autarch tool in a terminal to answer", nil
	}
	if err != nil {
		return "", false, "", fmt.Errorf("asking for the review: %w", err)
	}
	ok := v.Decision == editor.DecisionApprove || v.Decision == editor.DecisionAlwaysAllow
	return id, ok, v.Feedback, nil
}

func (j *cliJob) Committed(_ context.Context, c team.Commit) error {
	fmt.Fprintf(j.log, "autarch tool: job %s committed %s on %s\n", j.id, c.Hash, c.Branch)
	return nil
}
