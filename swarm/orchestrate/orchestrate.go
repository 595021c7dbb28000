package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/agent"
	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Self is the orchestrator's agent name towards the engine (it sets phase).
const Self = "orchestrator"

// Config wires an Orchestrator.
type Config struct {
	Repo *git.Repo
	// Open opens the swarm engine of a swarm: its tools read the swarm's
	// worktree.
	Open OpenEngine
	// Model answers every agent (each request names the agent's model, or
	// DefaultModel); Models overrides it by agent name.
	Model        agent.Model
	DefaultModel string
	Models       map[string]agent.Model
	// Arbiter is the arbiter a swarm names ("human" or a model name).
	Arbiter func(name string) Arbiter
	// Events hears of everything the swarm does (nil: dropped), one event
	// at a time; the transcript records it too, in the order it happened
	// (the turns of a round's agents interleave when they run at once).
	Events func(editor.SwarmEvent)
	// MaxIterations caps model calls per agent turn (default 12).
	MaxIterations int
	// TokenBudget caps the tokens (prompt + completion, all agents and the
	// arbiter's model calls made by agents) one Run may spend (default
	// DefaultTokenBudget); a spent budget stops the swarm, resumable with
	// a fresh budget.
	TokenBudget int
	// Concurrency is how many agents of a round take their turns at once
	// (default min(agents, DefaultConcurrency)). 1 runs them one after
	// another in the swarm's order, each seeing in its round input the
	// findings the agents before it shared that round.
	Concurrency int
	// Hooks are the project's hooks (from trusted configuration only; nil:
	// none): every agent tool call goes through pre_tool_use (which may
	// block it) and post_tool_use with AUTARCH_AGENT (the agent's name) and
	// AUTARCH_SWARM (the swarm's id); a run fires session_start and
	// session_end.
	Hooks *tools.Hooks
	// Guardrails are the project's guardrails (nil: only the built-in
	// protections): they judge every fs_write as the workflow's writes,
	// and an approved proposal again when it is applied, together with
	// the project's configuration as it is then.
	Guardrails *tools.Guardrails
	// Commands confines the quality gates' commands, run on the swarm's
	// worktree after each round that wrote something (zero: the sandbox
	// selected at first use).
	Commands tools.CommandPolicy
	// Quality overrides the quality gates' configuration (nil: the
	// guardrails', else the repository's read untrusted: detected gates
	// only).
	Quality *tools.Quality
	// Tools are the MCP servers' tools for an agent role (nil: none),
	// asked with Role when a run starts: the agents get the read-only
	// ones, by the rule the workflow's read-only roles follow.
	Tools func(ctx context.Context, role string) []tools.Tool
}

// Role is the role a swarm's agents ask Config.Tools for their MCP tools
// with: a read-only role (their writes are proposals).
const Role = "swarm"

// serverTools are the read-only MCP tools the agents of a run get.
func (o *Orchestrator) serverTools(ctx context.Context) []tools.Tool {
	if o.cfg.Tools == nil {
		return nil
	}
	var out []tools.Tool
	for _, t := range o.cfg.Tools(ctx, Role) {
		if t.Kind() == tools.ReadOnly && !slices.Contains(swarm.ToolNames, t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

// DefaultConcurrency bounds the agents of a round running at once when
// Config names no Concurrency.
const DefaultConcurrency = 4

// DefaultTokenBudget is a Run's token budget when Config names none.
const DefaultTokenBudget = 1_000_000

// errBudget is a Run's spent token budget.
var errBudget = errors.New("token budget spent")

// Options are what a new swarm does.
type Options struct {
	Task   string
	Agents []editor.SwarmAgent
	// Rounds (default 3).
	Rounds int
	// Arbiter names the arbiter for the record: a model name or "human".
	Arbiter    string
	AllowWrite bool
	// ReadOnly makes every round a proposal round: no fs_write, each
	// agent ends its turn with an improvement proposal.
	ReadOnly bool
	// Base is the ref the swarm's branch starts from (default HEAD).
	Base string
}

// Orchestrator runs swarms of one repository.
type Orchestrator struct {
	cfg Config
	// egress is the repository's secret filter: every model request
	// (agents and arbiter), event and transcript line passes it.
	egress *tools.Egress

	mu    sync.Mutex
	views map[string]Engine // Snapshot's engines, by swarm id

	emitMu sync.Mutex // one event at a time: transcript, then Events
}

// New checks the configuration.
func New(cfg Config) (*Orchestrator, error) {
	if cfg.Repo == nil || cfg.Open == nil || cfg.Arbiter == nil {
		return nil, errors.New("a swarm needs a repository, the swarm engine and an arbiter")
	}
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = 12
	}
	if cfg.TokenBudget <= 0 {
		cfg.TokenBudget = DefaultTokenBudget
	}
	o := &Orchestrator{cfg: cfg, egress: tools.NewEgress(context.Background(), nil, tools.DefaultEgressSources(cfg.Repo.Top(), cfg.Repo.CommonDir()))}
	arbiter := cfg.Arbiter
	o.cfg.Arbiter = func(name string) Arbiter {
		a := arbiter(name)
		if m, ok := a.(ModelArbiter); ok && m.Egress == nil {
			m.Egress = o.egress
			return m
		}
		return a
	}
	return o, nil
}

func (o *Orchestrator) root() string { return Dir(o.cfg.Repo.StateDir()) }

// Start records a new swarm and makes its worktree; Run runs it.
func (o *Orchestrator) Start(ctx context.Context, opts Options) (*State, error) {
	if strings.TrimSpace(opts.Task) == "" {
		return nil, errors.New("no task: say what the swarm should do")
	}
	if len(opts.Agents) == 0 {
		return nil, errors.New("no agents: give at least one (--agents NAME=MODEL,…)")
	}
	if opts.Rounds == 0 {
		opts.Rounds = 3
	}
	if opts.Rounds < 1 || opts.Rounds > 50 {
		return nil, fmt.Errorf("%d rounds: give 1 to 50", opts.Rounds)
	}
	base := opts.Base
	if base == "" {
		base = "HEAD"
	}
	commit, err := o.cfg.Repo.ResolveCommit(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("base %q: %w (the repository needs a commit to start from)", base, err)
	}
	id := newID()
	st := &State{ID: id, Task: strings.TrimSpace(opts.Task), Agents: opts.Agents, Rounds: opts.Rounds, Arbiter: opts.Arbiter,
		AllowWrite: opts.AllowWrite, ReadOnly: opts.ReadOnly, Base: commit, Branch: BranchPrefix + id,
		Worktree: o.cfg.Repo.WorktreePath("swarm-" + id), Status: StatusRunning, Round: 1, Stage: stageAgents}
	s, err := openStore(o.root(), id)
	if err != nil {
		return nil, err
	}
	if err := ensureWorktree(ctx, o.cfg.Repo, st); err != nil {
		return nil, err
	}
	if err := s.saveState(st); err != nil {
		return nil, err
	}
	o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: id, Status: StatusRunning,
		Text: fmt.Sprintf("%s: %d agent(s), %d round(s), arbiter %s, branch %s", id, len(st.Agents), st.Rounds, st.Arbiter, st.Branch)})
	return st, nil
}

// Load reads a swarm's state.
func (o *Orchestrator) Load(id string) (*State, error) {
	s, err := openStore(o.root(), id)
	if err != nil {
		return nil, err
	}
	return s.loadState()
}

// ErrBusy means another live process runs the swarm (it holds the run's
// lock: kernel.ErrLocked).
var ErrBusy = fmt.Errorf("the swarm is running in another autarch process (%w)", kernel.ErrLocked)

// Run runs (or resumes) a swarm from its recorded step until its last
// round is applied. A cancelled ctx stops it (resumable); a failure is
// recorded with its reason (resumable once the cause is fixed).
func (o *Orchestrator) Run(ctx context.Context, id string) (*State, error) {
	s, err := openStore(o.root(), id)
	if err != nil {
		return nil, err
	}
	st, err := s.loadState()
	if err != nil {
		return nil, err
	}
	unlock, err := kernel.Lock(lockPath(s.dir), time.Second) // a listing may probe the lock for a moment
	if kernel.IsLocked(err) {
		return st, ErrBusy
	}
	if err != nil {
		return st, err
	}
	defer unlock()
	if st.Status == StatusDone {
		return st, nil
	}
	if st.Status != StatusRunning {
		st.Status, st.Reason = StatusRunning, ""
		if err := s.saveState(st); err != nil {
			return st, err
		}
		o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: id, Status: StatusRunning, Round: st.Round, Text: "resumed at round " + fmt.Sprint(st.Round) + " (" + st.Stage + ")"})
	}
	if err := ensureWorktree(ctx, o.cfg.Repo, st); err != nil {
		return st, o.fail(s, st, err)
	}
	eng, err := o.cfg.Open(ctx, st.ID, st.Worktree, Policy{Hooks: o.cfg.Hooks, Guardrails: o.cfg.Guardrails, Egress: o.egress, Tools: o.serverTools(ctx)})
	if err != nil {
		return st, o.fail(s, st, fmt.Errorf("open the swarm engine: %w", err))
	}
	defer eng.Close()
	meter := kernel.NewMeter(kernel.Budget{Tokens: int64(o.cfg.TokenBudget)}, kernel.Spent{})
	r := &run{o: o, s: s, st: st, eng: eng, meter: meter, tokens0: st.Tokens}
	r.fire(ctx, tools.EventSessionStart, map[string]any{"task": st.Task, "round": st.Round, "rounds": st.Rounds, "agents": agentNames(st.Agents)})
	defer func() {
		r.fire(context.WithoutCancel(ctx), tools.EventSessionEnd, map[string]any{"round": st.Round, "status": st.Status, "reason": st.Reason})
	}()
	for st.Round <= st.Rounds {
		if err := r.round(ctx); err != nil {
			if errors.Is(err, errBudget) {
				st.Status = StatusStopped
				st.Reason = fmt.Sprintf("token budget spent: %d tokens this run (budget %d) at round %d (%s); autarch swarm --resume %s continues with a new budget", r.tokens(), o.cfg.TokenBudget, st.Round, st.Stage, st.ID)
				o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: id, Status: StatusStopped, Round: st.Round, Text: st.Reason, Failed: true})
				return st, s.saveState(st)
			}
			if ctx.Err() != nil {
				st.Status, st.Reason = StatusStopped, "stopped at round "+fmt.Sprint(st.Round)+" ("+st.Stage+")"
				o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: id, Status: StatusStopped, Round: st.Round, Text: st.Reason})
				return st, errors.Join(ctx.Err(), s.saveState(st))
			}
			return st, o.fail(s, st, err)
		}
	}
	st.Status, st.Stage, st.Round, st.Reason = StatusDone, stageDone, st.Rounds, gatesReason(st)
	if err := s.saveState(st); err != nil {
		return st, err
	}
	text := fmt.Sprintf("%d commit(s) on %s", len(st.Commits), st.Branch)
	if st.Reason != "" {
		text += "; " + st.Reason
	}
	o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: id, Status: StatusDone, Round: st.Rounds, Text: text, Failed: st.Reason != ""})
	return st, nil
}

// fail records a failure (resumable) and returns it.
func (o *Orchestrator) fail(s *store, st *State, err error) error {
	st.Status, st.Reason = StatusFailed, err.Error()
	o.emit(s, editor.SwarmEvent{Kind: "status", SwarmID: st.ID, Status: StatusFailed, Round: st.Round, Text: err.Error(), Failed: true})
	return errors.Join(err, s.saveState(st))
}

// emit records an event in the transcript and tells Events.
func (o *Orchestrator) emit(s *store, ev editor.SwarmEvent) {
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	ev.Text = o.egress.Auto(ev.Text)
	if err := s.record(ev); err != nil && o.cfg.Events != nil {
		o.cfg.Events(editor.SwarmEvent{Kind: "error", SwarmID: ev.SwarmID, Text: err.Error(), Failed: true})
	}
	if o.cfg.Events != nil {
		o.cfg.Events(ev)
	}
}

// modelFor is the model answering an agent and the name to ask for (the
// agent loop filters its requests through the orchestrator's egress gate:
// Policy.Egress).
func (o *Orchestrator) modelFor(a editor.SwarmAgent) (agent.Model, string) {
	name := a.Model
	if name == "" {
		name = o.cfg.DefaultModel
	}
	if m, ok := o.cfg.Models[a.Name]; ok {
		return m, name
	}
	return o.cfg.Model, name
}

// lockPath is the run lock of the swarm whose state is in dir: held by
// the process running it (run.Lock), free once that process died.
func lockPath(dir string) string { return filepath.Join(dir, "run.lock") }

// running reports whether a live process holds the swarm's run lock.
func running(dir string) bool { return kernel.Held(lockPath(dir)) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
