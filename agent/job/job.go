// Package job runs jobs: one agent with the coding-team tools
// (tools/team) on its own ai/… branch in its own linked worktree, outside
// the user's folder, until it commits (Done), asks a human and waits for
// the answer (Waiting), or hits its budget or iteration limit (Stopped,
// resumable).
//
// A job is durable like a workflow: it lives in the workflow store, its
// conversation is persisted message by message as it happens, and every
// tool call is recorded as it starts and ends. A job whose process died
// (even by SIGKILL: the run lock is an flock) is Stopped by Recover and
// resumed from its last message; a tool call that started is never run
// again: the agent is told what is known of it instead.
package job

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/team"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Budget is what a job may spend over its whole life: prompt+completion
// tokens and model calls (the run kernel's budget; a job sets no dollar
// cap of its own).
type Budget = run.Budget

// DefaultBudget is a mode's budget: mechanic jobs get a smaller one.
func DefaultBudget(m team.Mode) Budget {
	if m == team.Genius {
		return Budget{Tokens: 2_000_000, Iterations: 200}
	}
	return Budget{Tokens: 400_000, Iterations: 60}
}

// Config configures a Runner: the project's wiring jobs share with the
// project's other runs (what cmd/autarch picks; app.JobConfig takes it
// from the project's workflow wiring), given explicitly.
type Config struct {
	Store *store.Store
	Repo  *git.Repo
	// StateDir holds the run locks ("": the repository's state dir).
	StateDir string
	// Editor asks the person (escalations, confirmations).
	Editor   editor.Client
	Model    agent.Model
	Settings agent.Settings
	// Mode, Commands, Guardrails, Egress and Repository are the tool
	// sessions' confinement and policy; Hooks run around tool calls.
	Mode       tools.Mode
	Commands   tools.CommandPolicy
	Hooks      *tools.Hooks
	Guardrails *tools.Guardrails
	Egress     *tools.Egress
	Repository tools.Config
	// Search is the code search of a worktree (nil: none).
	Search func(dir string) tools.Searcher
	Web    tools.WebSearcher
	// Tools adds tools to a role's set (MCP servers; nil: none).
	Tools func(ctx context.Context, role string) []tools.Tool
	Meter *agent.Meter
	Log   *slog.Logger
	// Apply brings a branch's commits into the user's folder the way a
	// workflow's are (workflow.Engine.Apply; nil: jobs are not applied).
	Apply func(ctx context.Context, wf store.Workflow, mode workflow.ApplyMode, document func(path string) (string, bool)) (editor.ApplyWorkflowResult, error)
	// Events receives what jobs do (nil: dropped).
	Events func(editor.JobEvent)
	// Deltas receives the agent's messages in pieces as the model streams
	// them (Kind "text"), for clients that show text as it is written
	// (ACP); Events never carries them (nil: dropped).
	Deltas func(editor.JobEvent)
	// Budget overrides DefaultBudget (nil: the defaults).
	Budget func(team.Mode) Budget
	// StopPoll is how often a running job checks whether it was stopped
	// from another process (default 500ms).
	StopPoll time.Duration
}

// Runner starts, runs, resumes and lists jobs.
type Runner struct {
	cfg   Config
	store *store.Store
	repo  *git.Repo
	log   *slog.Logger
	// refs serialises the ref updates of this process's jobs.
	refs sync.Mutex

	locks   run.Locks
	running run.Active
	// held are run locks Start and Resume took for the Run that follows,
	// so that no Recover (of this process or another) sees their job
	// Running and unlocked in between.
	held run.Claims
}

// New makes a Runner.
func New(cfg Config) (*Runner, error) {
	if cfg.Store == nil || cfg.Repo == nil {
		return nil, errors.New("job runner: no store or repository")
	}
	if cfg.Budget == nil {
		cfg.Budget = DefaultBudget
	}
	if cfg.StopPoll <= 0 {
		cfg.StopPoll = 500 * time.Millisecond
	}
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	// Jobs keep their run locks beside the workflows' (job-<id>.lock).
	locks := run.NewLocks(filepath.Join(cmp.Or(cfg.StateDir, cfg.Repo.StateDir()), "locks"))
	return &Runner{cfg: cfg, store: cfg.Store, repo: cfg.Repo, log: log.With("component", "job"), locks: locks}, nil
}

func (r *Runner) emit(ev editor.JobEvent) { run.Send(r.cfg.Events, ev) }

// Task is what starts a job.
type Task struct {
	// Text is the user's request.
	Text string
	// Mode is mechanic (the default) or genius.
	Mode string
	// Base is the ref the job starts from ("": the repository's default
	// branch).
	Base string
}

// ParseMode checks a mode ("" is mechanic).
func ParseMode(s string) (team.Mode, error) {
	switch team.Mode(s) {
	case "", team.Mechanic:
		return team.Mechanic, nil
	case team.Genius:
		return team.Genius, nil
	}
	return "", fmt.Errorf("mode %q is not accepted: use mechanic (patch limits, a smaller budget) or genius (no limits)", s)
}

// Start records a new job and creates its worktree, detached at the base;
// Run takes it from there.
func (r *Runner) Start(ctx context.Context, t Task) (store.Job, error) {
	text := strings.TrimSpace(t.Text)
	if text == "" {
		return store.Job{}, errors.New("the task is empty: describe what the job should do")
	}
	mode, err := ParseMode(t.Mode)
	if err != nil {
		return store.Job{}, err
	}
	if err := r.checkModel(); err != nil {
		return store.Job{}, err
	}
	base := t.Base
	if base == "" {
		if base, err = r.repo.DefaultBranch(ctx); err != nil {
			return store.Job{}, err
		}
	}
	baseCommit, err := r.repo.ResolveCommit(ctx, base)
	if err != nil {
		return store.Job{}, fmt.Errorf("base %q: %w", base, err)
	}
	id := newID()
	if err := r.hold(id); err != nil {
		return store.Job{}, err
	}
	budget := r.cfg.Budget(mode)
	j := store.Job{ID: id, Name: git.NameForTask(text, id[:6]), Task: text, Mode: string(mode), Status: store.JobRunning,
		BaseRef: base, BaseCommit: baseCommit, WorktreePath: worktreePath(r.repo, id), TokenBudget: budget.Tokens, IterationLimit: budget.Iterations}
	if err := r.store.CreateJob(ctx, &j); err != nil {
		r.release(id)
		return store.Job{}, err
	}
	if err := ensureWorktree(ctx, r.repo, j); err != nil {
		r.release(id)
		r.setStatus(context.WithoutCancel(ctx), j, store.JobFailed, err.Error())
		return j, err
	}
	r.emit(editor.JobEvent{Kind: "status", JobID: j.ID, Status: string(j.Status), Text: fmt.Sprintf("job %s started (%s, from %s)", j.Name, j.Mode, base)})
	return j, nil
}

// checkModel refuses to start a job no model could run.
func (r *Runner) checkModel() error {
	d, ok := r.cfg.Model.(agent.DefaultNamer)
	if r.cfg.Model == nil || ok && d.DefaultModelName() == "" && r.cfg.Settings.ModelFor(agent.Job) == "" {
		return workflow.ErrNoModel
	}
	return nil
}

// newID is a job id: 16 hex digits (the first 8 name its branches).
func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Find resolves a job by id, id prefix (at least 4 characters) or name.
func (r *Runner) Find(ctx context.Context, ref string) (store.Job, error) {
	ref = strings.TrimSpace(ref)
	if j, err := r.store.Job(ctx, ref); err == nil || !errors.Is(err, store.ErrNotFound) {
		return j, err
	}
	jobs, err := r.store.Jobs(ctx)
	if err != nil {
		return store.Job{}, err
	}
	var found []store.Job
	for _, j := range jobs {
		if j.Name == ref || len(ref) >= 4 && strings.HasPrefix(j.ID, ref) {
			found = append(found, j)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return store.Job{}, fmt.Errorf("no job with id or name %q (autarch status lists them)", ref)
	}
	return store.Job{}, fmt.Errorf("%q names %d jobs: give more of the id (autarch status lists them)", ref, len(found))
}

// Stop marks a job Stopped; a process running it notices within StopPoll.
func (r *Runner) Stop(ctx context.Context, ref, reason string) error {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return err
	}
	if j.Status == store.JobDone {
		return fmt.Errorf("job %s is done: nothing to stop", j.Name)
	}
	if reason == "" {
		reason = "stopped by the user"
	}
	if err := r.setStatus(ctx, j, store.JobStopped, reason); err != nil {
		return err
	}
	r.running.Cancel(j.ID, errStopped)
	return nil
}

// setStatus records and announces a job's status.
func (r *Runner) setStatus(ctx context.Context, j store.Job, s store.JobStatus, reason string) error {
	if err := r.store.SetJobStatus(context.WithoutCancel(ctx), j.ID, s, reason); err != nil {
		return err
	}
	r.emit(editor.JobEvent{Kind: "status", JobID: j.ID, Status: string(s), Text: reason})
	return nil
}

// InterruptedReason is why Recover stopped a job whose process died.
const InterruptedReason = "interrupted: the process running the job ended; resume it to continue"

// Recover stops the Running jobs no live process runs (their process
// was killed), to be resumed. Call it before listing or running jobs.
func (r *Runner) Recover(ctx context.Context) error {
	jobs, err := r.store.Jobs(ctx)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j.Status != store.JobRunning {
			continue
		}
		ran, err := r.locks.IfFree(lockName(j.ID), func() error { return r.setStatus(ctx, j, store.JobStopped, InterruptedReason) })
		if err != nil {
			return err
		}
		if ran {
			r.log.Info("recovered interrupted job", "job", j.ID)
		}
	}
	return nil
}

// Resume makes a stopped, failed or waiting job run again from its last
// message. A job stopped by its budget or iteration limit is granted
// another of its mode's budget.
func (r *Runner) Resume(ctx context.Context, ref string) (store.Job, error) {
	j, err := r.resumable(ctx, ref, "start a new job")
	if err != nil {
		return j, err
	}
	if err := r.hold(j.ID); err != nil {
		return j, err
	}
	j, err = r.resume(ctx, j)
	if err != nil {
		r.release(j.ID)
		return j, err
	}
	return r.Run(ctx, j.ID)
}

// resumable finds a job that can run again: one not done, with a model to
// run it. instead is what to do with a done job ("start a new job").
func (r *Runner) resumable(ctx context.Context, ref, instead string) (store.Job, error) {
	j, err := r.Find(ctx, ref)
	if err != nil {
		return j, err
	}
	if j.Status == store.JobDone {
		return j, fmt.Errorf("job %s is done (committed on %s): apply it, or %s", j.Name, j.Branch, instead)
	}
	return j, r.checkModel()
}

// resume grants a job stopped by its limits another budget and makes it
// Running.
func (r *Runner) resume(ctx context.Context, j store.Job) (store.Job, error) {
	b := budgetOf(j)
	if more := b.Grant(spentOf(j), r.cfg.Budget(team.Mode(j.Mode))); more != b {
		if err := r.store.SetJobLimits(ctx, j.ID, more.Tokens, more.Iterations); err != nil {
			return j, err
		}
	}
	return j, r.setStatus(ctx, j, store.JobRunning, "resumed")
}

// AnswerEscalation records the human's answer to a job's pending
// escalation; the agent receives it when the job runs again (Resume).
func (r *Runner) AnswerEscalation(ctx context.Context, jobRef, escalationID string, approved bool, feedback string) (store.Job, error) {
	j, err := r.Find(ctx, jobRef)
	if err != nil {
		return j, err
	}
	e, err := r.store.JobEscalation(ctx, escalationID)
	if err != nil || e.JobID != j.ID {
		return j, fmt.Errorf("job %s has no escalation %q", j.Name, escalationID)
	}
	if e.Status != store.EscalationPending {
		return j, fmt.Errorf("escalation %s was already answered", escalationID)
	}
	if err := r.store.AnswerJobEscalation(ctx, e.ID, approved, strings.TrimSpace(feedback)); err != nil {
		return j, err
	}
	r.emit(editor.JobEvent{Kind: "escalation", JobID: j.ID, Status: store.EscalationAnswered, Text: answerWords(approved, feedback)})
	return j, nil
}

func answerWords(approved bool, feedback string) string {
	s := "declined"
	if approved {
		s = "approved"
	}
	if fb := strings.TrimSpace(feedback); fb != "" {
		s += ": " + fb
	}
	return s
}
