package workflow

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Config wires an Engine to its parts.
type Config struct {
	Store *store.Store
	Repo  *git.Repo
	// Editor asks the user's approvals and questions.
	Editor editor.Client
	Model  agent.Model
	// Settings choose the model per role, the context window and pricing.
	Settings agent.Settings
	// Mode is the confirmation policy for sensitive tool calls.
	Mode       tools.Mode
	Hooks      *tools.Hooks
	Guardrails *tools.Guardrails
	// Egress is the repository's secret filter, shared by the agents'
	// sessions (nil: each session makes its own).
	Egress *tools.Egress
	// Commands confines the agents' shell commands (sandbox, network).
	Commands tools.CommandPolicy
	// Quality configures the quality gates run when a pulse completes
	// (nil: Guardrails.Quality, else read from the repository's
	// configuration untrusted: its commands are ignored).
	Quality *tools.Quality
	// Search returns the semantic search scope of a directory (the user's
	// folder or a worktree); nil means nothing is indexed.
	Search func(dir string) tools.Searcher
	// Diagnostics are the editor's diagnostics of the user's folder, for
	// read_lints (nil: the project's own checker, as in worktrees).
	Diagnostics tools.Diagnostics
	// Web backs web_code_search (nil: not configured).
	Web tools.WebSearcher
	// Tools returns tools added to an agent role's (the MCP servers'
	// tools, filtered for the role); nil: none.
	Tools func(ctx context.Context, role string) []tools.Tool
	// Repository is the repository's .autarch/config.yaml: commands,
	// workspace (the project's, set by Project.Engine).
	Repository tools.Config
	// DryRun runs workflows without changing the repository (Project.Engine
	// sets it for a project opened with OpenDryRun): see dryrun.go.
	DryRun bool
	// StateDir keeps the run locks ("": the repository's state directory).
	StateDir string
	// Meter counts usage across workflows and enforces the budget.
	Meter *agent.Meter
	Log   *slog.Logger
	// Events receives what happens, for the CLI and the side panel (nil: dropped).
	Events func(Event)
	// Deltas receives the agents' messages in pieces as the model streams
	// them, for clients that show text as it is written (ACP); Events,
	// which editors receive, never carries them (nil: dropped).
	Deltas func(Delta)
	// MaxIterations caps model calls per agent turn (default 40).
	MaxIterations int
	// ResearchFanOut, when not nil, runs explorer sub-agents on the
	// approved scope before the Research agent (a read-only swarm sharing
	// findings through its context) and returns their consolidated
	// findings, which the Research agent gets with its task; key is the
	// workflow's id (a resumed workflow reuses its explorers' work).
	ResearchFanOut func(ctx context.Context, key, scope string) (string, error)
	// MaxTurns caps the turns of one stage's conversation before it fails
	// (default 30).
	MaxTurns int
	// PreflightTimeout bounds preflight (default 20 minutes).
	PreflightTimeout time.Duration
	// StopPoll is how often a running workflow checks whether it was
	// stopped from another process (default 500ms).
	StopPoll time.Duration
	// Parallel is how many pulses a new workflow runs at once (0 or 1:
	// one after another, in plan order); see parallel.go.
	Parallel int
	// PulseLease is how long a parallel pulse's lease lasts without being
	// extended (default 60s): a killed process's pulses can be taken again
	// after it.
	PulseLease time.Duration
}

// Event is something a workflow did (kinds: "stage", "tool_call",
// "tool_result", "message", "pulse", "card", "review_comment", "halt",
// "waiting", "usage"); editors receive it as is.
type Event = editor.WorkflowEvent

// Engine runs workflows: it moves them through their stages, asks the
// user through the editor, works in git worktrees and records everything
// in the store.
type Engine struct {
	cfg Config

	running run.Active // runs in this process, by workflow id

	chatMu sync.Mutex
	chats  map[string]*conversation // the discussion agent's threads, once someone talks in them

	plans planBook // what dry runs recorded, by workflow id

	servers runServers // the language servers of the runs in this process
	masks   runMasks   // what the secret-mask decisions of the runs in this process know
}

// New checks the configuration and makes an Engine.
func New(cfg Config) (*Engine, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("workflow engine: no store")
	case cfg.Repo == nil:
		return nil, errors.New("workflow engine: no git repository")
	case cfg.Editor == nil:
		return nil, errors.New("workflow engine: no editor to ask the user")
	case cfg.Model == nil:
		return nil, errors.New("workflow engine: no model")
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = 40
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = 30
	}
	if cfg.PreflightTimeout <= 0 {
		cfg.PreflightTimeout = 20 * time.Minute
	}
	if cfg.StopPoll <= 0 {
		cfg.StopPoll = 500 * time.Millisecond
	}
	if cfg.PulseLease <= 0 {
		cfg.PulseLease = 60 * time.Second
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.Mode == "" {
		cfg.Mode = tools.ModeConfirmSensitive
	}
	return &Engine{cfg: cfg}, nil
}

// Store is the engine's store.
func (e *Engine) Store() *store.Store { return e.cfg.Store }

// Config is the engine's configuration (agent/job runs its job agents
// with the same model, settings, editor, hooks and confinement).
func (e *Engine) Config() Config { return e.cfg }

func (e *Engine) emit(ev Event) { run.Send(e.cfg.Events, ev) }

// Delta is a piece of an agent's message as the model streams it (not a
// sub-agent's), or the note that the message which ended the agent's turn
// was withheld.
type Delta struct {
	WorkflowID string
	Stage      string
	PulseID    string
	// Text is the piece; empty when Withheld.
	Text string
	// Withheld: the message that ended the turn asked the user a question
	// in prose and went back to the agent with the question rule (see
	// talk): it is not for the user to answer.
	Withheld bool
}

func (e *Engine) delta(d Delta) { run.Send(e.cfg.Deltas, d) }

// Task is what starts a workflow.
type Task struct {
	// Text is the user's request.
	Text string
	// Name is the workflow (and branch) name; made from the task when empty.
	Name string
	// Path forces the quick or full path ("": the scope card's recommendation).
	Path Path
	// Base is the branch the workflow starts from ("": the user's current branch).
	Base string
	// Parallel is how many pulses may run at once (0: Config.Parallel);
	// recorded with the workflow, so resume keeps it.
	Parallel int
}

// ErrNoModel refuses to start a workflow that no model could run.
var ErrNoModel = errors.New(`no model is configured, so no workflow was started. Set one, then start again: ` +
	`in VS Code the autarch.model.name setting (with autarch.model.baseUrl for an endpoint other than OpenAI's, and "Autarch: Set API Key" for its key); ` +
	`on the command line --model or AUTARCH_MODEL (with OPENAI_BASE_URL and OPENAI_API_KEY)`)

// checkModel returns ErrNoModel when a role of the workflow has no model
// name: none in the settings, and none from a model that names its own
// (agent.DefaultNamer). A model that cannot say is trusted to have one.
func (e *Engine) checkModel() error {
	d, ok := e.cfg.Model.(agent.DefaultNamer)
	if !ok || d.DefaultModelName() != "" {
		return nil
	}
	for _, r := range []string{agent.Scoping, agent.Research, agent.Plan, agent.Preflight, agent.Pulsing, agent.Review} {
		if e.cfg.Settings.ModelFor(r) == "" {
			return ErrNoModel
		}
	}
	return nil
}

// ErrWaiting is returned by Run when the workflow waits for the user: a
// question or approval was dismissed and stays pending.
var ErrWaiting = errors.New("waiting for the user")

// Start records a new workflow in Scoping. Run takes it from there.
func (e *Engine) Start(ctx context.Context, t Task) (store.Workflow, error) {
	text := strings.TrimSpace(t.Text)
	if text == "" {
		return store.Workflow{}, errors.New("the task is empty: describe what the workflow should do")
	}
	if err := e.checkModel(); err != nil {
		return store.Workflow{}, err
	}
	if t.Path != "" {
		if _, err := ParsePath(string(t.Path)); err != nil {
			return store.Workflow{}, err
		}
	}
	name := t.Name
	if name == "" {
		name = nameFor(text)
	}
	if err := git.ValidateName(name); err != nil {
		return store.Workflow{}, err
	}
	if _, err := e.cfg.Store.WorkflowByName(ctx, name); err == nil {
		return store.Workflow{}, fmt.Errorf("a workflow named %q exists: choose another name", name)
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.Workflow{}, err
	}
	base := t.Base
	if base == "" {
		cur, err := e.cfg.Repo.CurrentBranch(ctx)
		if err != nil {
			return store.Workflow{}, fmt.Errorf("find the base branch: %w", err)
		}
		base = cur
	}
	baseCommit, err := e.cfg.Repo.ResolveCommit(ctx, base)
	if err != nil {
		return store.Workflow{}, fmt.Errorf("base %q: %w", base, err)
	}
	wf := store.Workflow{Name: name, Task: text, Stage: string(StageScoping), Path: string(t.Path), BaseBranch: base, BaseCommit: baseCommit,
		WorkflowBranch: git.WorkflowBranch(name)}
	parallel := cmp.Or(t.Parallel, e.cfg.Parallel, 1)
	if parallel < 1 {
		return store.Workflow{}, fmt.Errorf("parallel %d is not accepted: use 1 (one pulse at a time) or more", parallel)
	}
	err = e.cfg.Store.Update(ctx, func(tx *store.Tx) error {
		if err := tx.CreateWorkflow(ctx, &wf); err != nil {
			return err
		}
		return tx.SetParallel(ctx, wf.ID, parallel)
	})
	if err != nil {
		return store.Workflow{}, err
	}
	e.emit(Event{Kind: "stage", WorkflowID: wf.ID, Stage: wf.Stage, Text: "workflow " + name + " started"})
	return wf, nil
}

// nameFor names a workflow after its task: whole words, a random suffix.
func nameFor(task string) string {
	var b [3]byte
	rand.Read(b[:])
	return git.NameForTask(task, hex.EncodeToString(b[:]))
}

// Find resolves a workflow by id or name.
func (e *Engine) Find(ctx context.Context, idOrName string) (store.Workflow, error) {
	wf, err := e.cfg.Store.Workflow(ctx, idOrName)
	if errors.Is(err, store.ErrNotFound) {
		wf, err = e.cfg.Store.WorkflowByName(ctx, idOrName)
	}
	if errors.Is(err, store.ErrNotFound) {
		return store.Workflow{}, fmt.Errorf("no workflow with id or name %q (autarch status lists them)", idOrName)
	}
	return wf, err
}

// Stop marks a workflow Stopped. A process running it notices within
// StopPoll, stops the agent and keeps uncommitted pulse work as a recovery
// checkpoint; Resume continues it.
func (e *Engine) Stop(ctx context.Context, id, reason string) error {
	wf, err := e.Find(ctx, id)
	if err != nil {
		return err
	}
	if wf.Status == store.WorkflowCompleted || wf.Status == store.WorkflowAbandoned {
		return fmt.Errorf("workflow %s is %s: nothing to stop", wf.Name, wf.Status)
	}
	if reason == "" {
		reason = "stopped by the user"
	}
	if err := e.cfg.Store.SetWorkflowStatus(ctx, wf.ID, store.WorkflowStopped, reason); err != nil {
		return err
	}
	e.running.Cancel(wf.ID, errStopped)
	e.emit(Event{Kind: "halt", WorkflowID: wf.ID, Stage: wf.Stage, Status: string(store.WorkflowStopped), Text: reason})
	return nil
}

// Resume makes a stopped, halted, failed or waiting workflow active again
// and runs it from its last durable point.
func (e *Engine) Resume(ctx context.Context, id string) (store.Workflow, error) {
	wf, err := e.Find(ctx, id)
	if err != nil {
		return store.Workflow{}, err
	}
	switch wf.Status {
	case store.WorkflowCompleted, store.WorkflowAbandoned:
		return wf, fmt.Errorf("workflow %s is %s and cannot be resumed", wf.Name, wf.Status)
	}
	if err := e.checkModel(); err != nil {
		return wf, err
	}
	unlock, err := e.lockRun(wf.ID)
	if err != nil {
		return wf, err
	}
	_, err = e.finishOpenRevert(ctx, wf, RevertOptions{}) // a revert a dying process left half done (revert.go)
	unlock()
	if err != nil {
		return wf, err
	}
	// Questions left unanswered are asked again by the resumed agent; cards
	// left pending are presented again by their stage.
	open, err := e.cfg.Store.OpenPending(ctx, wf.ID)
	if err != nil {
		return wf, err
	}
	for _, p := range open {
		if err := e.cfg.Store.CancelPending(ctx, p.ID); err != nil {
			return wf, err
		}
	}
	if wf.Status != store.WorkflowActive {
		if err := e.cfg.Store.SetWorkflowStatus(ctx, wf.ID, store.WorkflowActive, "resumed"); err != nil {
			return wf, err
		}
	}
	return e.Run(ctx, wf.ID)
}

// Recover finishes what a killed process left running: Running pulses of
// workflows no live process runs become Stopped, with their uncommitted
// work kept as a recovery checkpoint; Running preflights become Failed;
// the workflows are Stopped, to be resumed. Call it at start-up.
func (e *Engine) Recover(ctx context.Context) error {
	wfs, err := e.cfg.Store.Workflows(ctx)
	if err != nil {
		return err
	}
	for _, wf := range wfs {
		if wf.Status == store.WorkflowCompleted || wf.Status == store.WorkflowAbandoned {
			continue
		}
		ran, err := e.locks().IfFree(lockName(wf.ID), func() error { return e.recover(ctx, wf) })
		if ran && err != nil {
			return fmt.Errorf("recover workflow %s: %w", wf.Name, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// recover cleans up one workflow whose process died.
func (e *Engine) recover(ctx context.Context, wf store.Workflow) error {
	interrupted := false
	pulses, err := e.cfg.Store.WorkflowPulses(ctx, wf.ID)
	if err != nil {
		return err
	}
	for _, p := range pulses {
		if p.Status != PulseRunning {
			continue
		}
		interrupted = true
		gw, err := e.cfg.Repo.OpenWorkflow(ctx, wf.Name, wf.BaseCommit)
		if err != nil {
			return err
		}
		if landed, err := e.recoverLanded(ctx, gw, p); err != nil {
			return err
		} else if landed {
			continue
		}
		cp, err := e.recoverPulse(ctx, gw, p)
		if err != nil {
			return err
		}
		end := store.PulseEnd{Status: PulseStopped, FailureReason: store.InterruptedReason, IsRecoveryCheckpoint: cp.IsRecoveryCheckpoint}
		if cp.IsRecoveryCheckpoint {
			end.CheckpointCommit, end.Diff = cp.Commit, diffStats(cp.Stats)
		}
		if err := e.cfg.Store.FinishPulse(ctx, p.ID, end); err != nil {
			return err
		}
		e.cfg.Log.Info("recovered interrupted pulse", "workflow", wf.Name, "pulse", p.PlannedID, "recovery", cp.IsRecoveryCheckpoint)
	}
	pf, err := e.cfg.Store.LatestPreflight(ctx, wf.ID)
	switch {
	case err == nil && pf.Status == store.PreflightRunning:
		interrupted = true
		if err := e.cfg.Store.FailPreflight(ctx, pf.ID, store.InterruptedReason); err != nil {
			return err
		}
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	if interrupted || wf.Status == store.WorkflowActive {
		return e.cfg.Store.SetWorkflowStatus(ctx, wf.ID, store.WorkflowStopped, store.InterruptedReason)
	}
	return nil
}

func diffStats(s git.Stats) store.DiffStats {
	return store.DiffStats{Files: s.Files, Additions: s.Additions, Deletions: s.Deletions}
}
