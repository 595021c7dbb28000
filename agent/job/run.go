package job

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
)

// Causes of a run's end, set on its context.
var (
	errStopped = errors.New("the job was stopped")
	// ErrWaiting ends a run whose agent waits for a human's answer to its
	// request_human_review.
	ErrWaiting = errors.New("waiting for a human review")
)

// maxNudges is how many times an agent that answers in prose is asked to
// continue before the job stops.
const maxNudges = 3

// Run runs a Running job's agent until it commits (Done), waits for a
// human (ErrWaiting, status Waiting), is stopped (by its budget, its
// iteration limit or the user) or fails. It returns the job as it was left.
func (r *Runner) Run(ctx context.Context, id string) (store.Job, error) {
	j, unlock, err := r.claimed(ctx, id)
	if err != nil {
		return j, err
	}
	defer unlock()
	if j.Status != store.JobRunning {
		return j, fmt.Errorf("job %s is %s: resume it first", j.Name, j.Status)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	remove, _ := r.running.Add(j.ID, cancel) // the run lock (claim) keeps a job to one run
	defer remove()
	go r.watchStop(ctx, j.ID, cancel)
	err = r.run(ctx, j, cancel)
	j, _ = r.store.Job(context.WithoutCancel(ctx), j.ID)
	if err == nil && j.Status == store.JobDone {
		r.removeWorktree(ctx, j)
	}
	return r.end(ctx, j, err)
}

// end records how a run ended and returns the job and the error to report.
func (r *Runner) end(ctx context.Context, j store.Job, err error) (store.Job, error) {
	cause := context.Cause(ctx)
	var limit *limitError
	switch {
	case err == nil:
		return j, nil
	case errors.Is(err, ErrWaiting) || errors.Is(cause, ErrWaiting):
		if j.Status != store.JobWaiting {
			r.setStatus(ctx, j, store.JobWaiting, "waiting for a human review")
			j.Status = store.JobWaiting
		}
		return j, ErrWaiting
	case errors.Is(cause, errStopped):
		return j, nil // Stop recorded the status
	case errors.As(err, &limit):
		return r.stopped(ctx, j, limit.Error()), nil
	case ctx.Err() != nil:
		return r.stopped(ctx, j, "interrupted: "+context.Cause(ctx).Error()+"; resume it to continue"), err
	}
	r.setStatus(ctx, j, store.JobFailed, err.Error())
	j.Status, j.StatusReason = store.JobFailed, err.Error()
	return j, err
}

func (r *Runner) stopped(ctx context.Context, j store.Job, reason string) store.Job {
	if err := r.setStatus(ctx, j, store.JobStopped, reason); err != nil {
		r.log.Error("record the stopped job", "job", j.ID, "err", err)
	}
	j.Status, j.StatusReason = store.JobStopped, reason
	return j
}

// watchStop cancels a run when the job is marked Stopped (by this process
// or another).
func (r *Runner) watchStop(ctx context.Context, id string, cancel context.CancelCauseFunc) {
	run.WatchStop(ctx, r.cfg.StopPoll, func(ctx context.Context) bool {
		j, err := r.store.Job(ctx, id)
		return err == nil && j.Status == store.JobStopped
	}, func() { cancel(errStopped) })
}

// run works the job's agent through its turns.
func (r *Runner) run(ctx context.Context, j store.Job, cancel context.CancelCauseFunc) error {
	if err := ensureWorktree(ctx, r.repo, j); err != nil {
		return err
	}
	h := &handle{r: r, job: j, cancel: cancel}
	history, err := r.restore(ctx, h)
	if err != nil {
		return err
	}
	a, closeSession, err := r.agent(ctx, h, history)
	if err != nil {
		return err
	}
	defer closeSession()
	input := firstInput(j, history)
	for nudges := 0; ; {
		out, err := a.RunTurn(ctx, input)
		if err != nil {
			return err
		}
		switch out.Kind {
		case agent.OutcomeTerminal:
			return r.done(ctx, j)
		case agent.OutcomeText:
			r.emit(editor.JobEvent{Kind: "message", JobID: j.ID, Text: out.Text})
			if nudges++; nudges > maxNudges {
				return &limitError{fmt.Sprintf("the agent answered %d times without committing or asking for a review; read its last answer, then resume the job with more guidance or start a new one: %s", maxNudges+1, clip(out.Text, 300))}
			}
			input = "Continue with the task. Finish by calling commit_changes once the tests and lint pass, or call request_human_review if you need a human."
		default: // the iteration limit of a turn, the dollar budget
			return &limitError{out.Text}
		}
	}
}

// done records a job that committed.
func (r *Runner) done(ctx context.Context, j store.Job) error {
	commits, err := r.store.JobCommits(ctx, j.ID)
	if err != nil {
		return err
	}
	reason := "committed"
	if n := len(commits); n > 0 {
		c := commits[n-1]
		reason = fmt.Sprintf("committed %.8s on %s: %s", c.Hash, c.Branch, firstLine(c.Message))
	}
	return r.setStatus(ctx, j, store.JobDone, reason)
}

// firstInput is the agent's first input of a run: the task for a new
// job; for a resumed one nothing when the conversation continues by
// itself (its last message is the user's or a tool result), else a nudge.
func firstInput(j store.Job, history []agent.Message) string {
	if len(history) == 0 {
		limits := "genius mode: no patch limits"
		if j.Mode == string(team.Mechanic) {
			limits = fmt.Sprintf("mechanic mode: each apply_patch may touch at most %d files and %d changed lines", team.MechanicMaxFiles, team.MechanicMaxLines)
		}
		return fmt.Sprintf("Task: %s\n\nJob %s (%s). You work in your own worktree, starting from %s; create your branch first.", j.Task, j.ID, limits, j.BaseRef)
	}
	switch last := history[len(history)-1]; last.Role {
	case agent.RoleUser, agent.RoleTool:
		return ""
	}
	return "The job was resumed. Continue with the task where you left off."
}

// limitError stops a job that can be resumed: its budget, its iteration
// limit, an agent that does not finish.
type limitError struct{ reason string }

func (e *limitError) Error() string { return e.reason }

// agent makes the job's agent: the team catalog in a session rooted at
// the job's worktree, its conversation restored and persisted as it goes.
func (r *Runner) agent(ctx context.Context, h *handle, history []agent.Message) (*agent.Agent, func(), error) {
	j, wf := h.job, r.cfg
	var search tools.Searcher
	if wf.Search != nil {
		search = wf.Search(j.WorktreePath)
	}
	servers := tools.NewLangServers(wf.Repository, r.log) // the repository's language_servers, shut down with the agent
	sess, err := tools.NewSession(tools.SessionConfig{Root: j.WorktreePath, Role: agent.Job, Mode: wf.Mode, Editor: wf.Editor, Search: search,
		StateDir: r.repo.StateDir(), Commands: wf.Commands, GitCommonDir: r.repo.CommonDir(), Protected: wf.Guardrails.ProtectedPaths(),
		AllowDelete: wf.Repository.Workspace.AllowDelete, AllowedOnly: wf.Repository.Commands.AllowedOnly, Egress: wf.Egress,
		Context:     tools.ToolContext{JobID: j.ID, TraceID: newID(), Mode: j.Mode, RepoPath: j.WorktreePath, LogEvent: h.logEvent},
		LangServers: servers})
	if err != nil {
		return nil, nil, fmt.Errorf("job session: %w", err)
	}
	closeSess := func() {
		sess.Close()
		servers.Close(context.Background())
	}
	reg, err := r.registry(h)
	if err != nil {
		closeSess()
		return nil, nil, err
	}
	remaining := j.IterationLimit - j.Iterations
	if j.IterationLimit <= 0 || remaining > 1000 {
		remaining = 1000
	}
	a, err := agent.New(agent.Config{Role: agent.Job, Model: newMetered(r, wf.Model, j), ModelName: wf.Settings.ModelFor(agent.Job),
		Engine: tools.NewEngine(reg, wf.Hooks, r.log).WithGuardrails(wf.Guardrails), Session: sess,
		MaxIterations: max(remaining, 1), ContextWindow: wf.Settings.ContextWindow, Meter: wf.Meter, Pricing: wf.Settings.Pricing,
		JSONEnvelope: wf.Settings.JSONEnvelope, Workflow: j.ID, History: history,
		Events:    func(ev agent.Event) { h.observe(ctx, ev) },
		OnMessage: func(m agent.Message) { h.persist(ctx, m) }})
	if err != nil {
		closeSess()
		return nil, nil, err
	}
	return a, closeSess, nil
}

// registry is the job agent's tool set: the team catalog, with run_tests
// and run_lint recording their results for the job.
func (r *Runner) registry(h *handle) (*tools.Registry, error) {
	ts, err := team.Tools(h, team.Deps{Tools: tools.Deps{Web: r.cfg.Web}, RefLock: &r.refs})
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if kind, ok := checkKinds[t.Name()]; ok || t.Name() == agent.JobTerminal {
			ts[i] = recording{Tool: t, h: h, kind: kind}
		}
	}
	if r.cfg.Tools != nil {
		ts = append(ts, r.cfg.Tools(context.Background(), agent.Job)...)
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		return nil, err
	}
	if reg, err = r.cfg.Repository.Apply(reg, agent.Job); err != nil {
		return nil, err
	}
	return tools.OfferCodeIntelligence(reg, h.job.WorktreePath, r.cfg.Repository.LangServerList()), nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
