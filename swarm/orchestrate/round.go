package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// run is one process's run of a swarm. During a round's agents stage
// several turns run at once: they change st only through change (under
// mu), and read only what that stage leaves alone (the task, the round,
// the proposals).
type run struct {
	o   *Orchestrator
	s   *store
	st  *State
	eng Engine

	mu sync.Mutex
	// meter counts this run's model calls against its token budget (the
	// budget is per run: a resume starts a new one); tokens0 are the
	// tokens of the runs before.
	meter   *kernel.Meter
	tokens0 int
}

func (r *run) emit(ev editor.SwarmEvent) {
	ev.SwarmID = r.st.ID
	if ev.Round == 0 {
		ev.Round = r.st.Round
	}
	r.o.emit(r.s, ev)
}

func (r *run) save() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.s.saveState(r.st)
}

// change applies fn to the state and saves it, one turn at a time.
func (r *run) change(fn func(st *State)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(r.st)
	return r.s.saveState(r.st)
}

// fire runs the hooks of a lifecycle event of the run (AUTARCH_SWARM is
// the swarm's id); a failing hook is reported and changes nothing.
func (r *run) fire(ctx context.Context, event string, payload map[string]any) {
	hc := tools.HookContextFrom(ctx)
	hc.Swarm = r.st.ID
	payload["swarm"] = r.st.ID
	out := r.o.cfg.Hooks.Fire(tools.WithHookContext(ctx, hc), event, "", "", payload)
	for _, w := range out.Warnings {
		r.warn(event + " hook: " + w)
	}
}

// warn shows a failing hook (it changed nothing).
func (r *run) warn(msg string) {
	r.emit(editor.SwarmEvent{Kind: "error", Failed: true, Text: msg})
}

// round runs the current round's remaining stages, then moves to the next.
func (r *run) round(ctx context.Context) error {
	st := r.st
	if st.Stage == stageAgents {
		if err := r.agents(ctx); err != nil {
			return err
		}
		st.Stage, st.Done = stageArbiter, nil
		if err := r.save(); err != nil {
			return err
		}
	}
	if st.Stage == stageArbiter {
		if err := r.arbitrate(ctx); err != nil {
			return err
		}
		st.Stage = stageApply
		if err := r.save(); err != nil {
			return err
		}
	}
	if err := r.apply(ctx); err != nil {
		return err
	}
	st.Round++
	st.Stage, st.Turn, st.Done = stageAgents, 0, nil
	if st.Round > st.Rounds {
		st.Round = st.Rounds + 1
	}
	return r.save()
}

// agents runs the turns of the round's agents that have not ended yet,
// up to Concurrency at once, started in the swarm's order. The first
// failure stops the others (their work so far is saved; a resume runs
// the rest); a spent budget lets the model calls in flight finish and
// starts no other.
func (r *run) agents(ctx context.Context) error {
	st := r.st
	done := r.ended()
	if len(done) == 0 {
		if err := r.eng.SetPhase(ctx, st.Round); err != nil {
			return fmt.Errorf("set phase %d: %w", st.Round, err)
		}
		r.emit(editor.SwarmEvent{Kind: "round", Text: fmt.Sprintf("round %d of %d (phase %d)", st.Round, st.Rounds, st.Round)})
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, r.o.concurrency(len(st.Agents)))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	failed := func() bool { mu.Lock(); defer mu.Unlock(); return len(errs) > 0 }
	for _, a := range st.Agents {
		if done[a.Name] {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-rctx.Done():
		}
		if rctx.Err() != nil || failed() {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := r.turn(r.agentContext(rctx, a), a)
			if err == nil {
				err = r.change(func(st *State) { st.Done = append(st.Done, a.Name); st.Turn = len(st.Done) })
			}
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				if !errors.Is(err, errBudget) {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	if err := firstCause(errs); err != nil {
		return err
	}
	return ctx.Err() // stopped before every turn started
}

// firstCause is the error a round's turns end with: a failure before a
// spent budget, before the cancellations it caused.
func firstCause(errs []error) error {
	var budget, cancelled error
	for _, err := range errs {
		switch {
		case errors.Is(err, errBudget):
			budget = err
		case errors.Is(err, context.Canceled):
			cancelled = err
		default:
			return err
		}
	}
	if budget != nil {
		return budget
	}
	return cancelled
}

// ended are the agents whose turn of the round ended (a state written
// before turns ran at once counts the first Turn agents).
func (r *run) ended() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]bool{}
	for _, n := range r.st.Done {
		out[n] = true
	}
	if len(r.st.Done) == 0 {
		for _, a := range r.st.Agents[:min(r.st.Turn, len(r.st.Agents))] {
			out[a.Name] = true
		}
	}
	return out
}

// agentContext gives the hooks of an agent's tool calls its name and the
// swarm's id (AUTARCH_AGENT, AUTARCH_SWARM).
func (r *run) agentContext(ctx context.Context, a editor.SwarmAgent) context.Context {
	hc := tools.HookContextFrom(ctx)
	hc.Agent, hc.Swarm = a.Name, r.st.ID
	return tools.WithHookContext(ctx, hc)
}

// concurrency is how many of n agents take their turns at once.
func (o *Orchestrator) concurrency(n int) int {
	c := o.cfg.Concurrency
	if c <= 0 {
		c = DefaultConcurrency
	}
	return max(1, min(c, n))
}

func agentNames(agents []editor.SwarmAgent) []string {
	out := make([]string, len(agents))
	for i, a := range agents {
		out[i] = a.Name
	}
	return out
}

// collect takes the engine's queued proposals into the state: ones already
// decided (a crash before Resolve) are resolved again, identical ones
// collapse, and a later proposal of a path supersedes an undecided earlier
// one.
func (r *run) collect(ctx context.Context, sess *tools.Session) error {
	queued, err := r.eng.Proposals(ctx)
	if err != nil {
		return fmt.Errorf("read the proposals: %w", err)
	}
	for _, p := range queued {
		if i := r.find(p.ID); i >= 0 {
			if r.st.Proposals[i].Action != "" {
				if err := r.eng.Resolve(ctx, r.st.Proposals[i], r.st.Arbiter); err != nil {
					return fmt.Errorf("resolve proposal %s: %w", p.ID, err)
				}
			}
			continue
		}
		dup := -1
		for i := range r.st.Proposals {
			q := &r.st.Proposals[i]
			if q.Action != "" || q.Path != p.Path {
				continue
			}
			if q.Agent == p.Agent && q.Content == p.Content {
				dup = i // the same call run again after a crash
				break
			}
			q.Action, q.Notes = ActionReject, fmt.Sprintf("superseded by %s's later proposal %s for the same path", p.Agent, p.ID)
			r.emit(editor.SwarmEvent{Kind: "decision", Agent: q.Agent, Path: q.Path, Action: q.Action, Text: q.Notes})
		}
		if dup >= 0 {
			twin := editor.SwarmProposal{ID: p.ID, Agent: p.Agent, Round: r.st.Round, Path: p.Path, Action: ActionReject,
				Notes: "the same proposal as " + r.st.Proposals[dup].ID}
			if err := r.eng.Resolve(ctx, twin, Self); err != nil {
				return fmt.Errorf("resolve proposal %s: %w", p.ID, err)
			}
			continue
		}
		sp := editor.SwarmProposal{ID: p.ID, Agent: p.Agent, Round: r.st.Round, Path: p.Path, Content: p.Content, Diff: diffOf(sess, p)}
		if !p.CreateDirs {
			sp.Notes = "create_dirs: false"
		}
		r.st.Proposals = append(r.st.Proposals, sp)
		r.emit(editor.SwarmEvent{Kind: "proposal", Agent: p.Agent, Path: p.Path, Text: sp.Diff})
	}
	return r.save()
}

func (r *run) find(id string) int {
	for i, p := range r.st.Proposals {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// arbitrate asks the arbiter about the undecided proposals and records
// every decision before anything is applied.
func (r *run) arbitrate(ctx context.Context) error {
	sess, _, err := r.worktreeSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	if err := r.collect(ctx, sess); err != nil {
		return err
	}
	var pending []editor.SwarmProposal
	for _, p := range r.st.Proposals {
		if p.Action == "" {
			if r.st.ReadOnly {
				continue
			}
			pending = append(pending, p)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	r.emit(editor.SwarmEvent{Kind: "awaiting", Agent: r.st.Arbiter, Text: fmt.Sprintf("%d proposal(s) await the arbiter (%s)", len(pending), r.st.Arbiter)})
	record := func(id string, d Decision) error {
		i := r.find(id)
		if i < 0 || r.st.Proposals[i].Action != "" {
			return nil
		}
		p := &r.st.Proposals[i]
		p.Action, p.Notes = d.Action, d.Notes
		r.emit(editor.SwarmEvent{Kind: "decision", Agent: p.Agent, Path: p.Path, Action: d.Action, Text: d.Notes})
		return r.save()
	}
	actx := r.agentContext(ctx, editor.SwarmAgent{Name: "arbiter"}) // AUTARCH_AGENT of an arbiter model's hooks
	decisions, err := r.o.cfg.Arbiter(r.st.Arbiter).Decide(actx, r.st.ID, r.st.Round, pending, record)
	if err != nil {
		r.emit(editor.SwarmEvent{Kind: "error", Text: "arbiter: " + err.Error(), Failed: true})
		return fmt.Errorf("arbiter: %w", err)
	}
	for _, p := range pending {
		if err := record(p.ID, decisions[p.ID]); err != nil {
			return err
		}
	}
	return nil
}

// refusedPrefix starts the notes of an approved proposal refused when
// applied.
const refusedPrefix = "approved but refused when applied: "

// worktreeSession is a session on the swarm's worktree judging paths by
// the guardrails as they are now (Orchestrator.guardrailsNow), which it
// returns too.
func (r *run) worktreeSession() (*tools.Session, []*tools.Guardrails, error) {
	rules, err := r.o.guardrailsNow()
	if err != nil {
		return nil, nil, err
	}
	var protected []string
	for _, g := range rules {
		protected = append(protected, g.ProtectedPaths()...)
	}
	sess, err := worktreeSession(r.st.Worktree, protected)
	return sess, rules, err
}

// approvedPaths are the paths of the round's approved proposals.
func (r *run) approvedPaths() []string {
	var out []string
	for _, p := range r.st.Proposals {
		if p.Round == r.st.Round && p.Action == ActionApprove {
			out = append(out, p.Path)
		}
	}
	return out
}

// apply writes the round's approved proposals in the worktree (only with
// AllowWrite), each judged again (applyProposal; a refused one is recorded
// as rejected, with why), commits them once, runs the quality gates over
// them (the first write of the swarm after a baseline run), and takes the
// decided proposals off the engine's queue.
func (r *run) apply(ctx context.Context) error {
	sess, rules, err := r.worktreeSession()
	if err != nil {
		return err
	}
	defer sess.Close()
	if r.st.AllowWrite {
		if err := r.baseline(ctx, r.approvedPaths()); err != nil {
			return fmt.Errorf("quality gates before the first write: %w", err)
		}
	}
	var written []string
	for i := range r.st.Proposals {
		p := &r.st.Proposals[i]
		if p.Round != r.st.Round || p.Action != ActionApprove {
			continue
		}
		if !r.st.AllowWrite {
			r.emit(editor.SwarmEvent{Kind: "applied", Agent: p.Agent, Path: p.Path, Failed: true,
				Text: "approved but not applied: the swarm runs without --allow-write"})
			continue
		}
		rel, err := applyProposal(sess, rules, *p, !strings.Contains(p.Notes, "create_dirs: false"))
		if err != nil {
			p.Action, p.Notes = ActionReject, refusedPrefix+err.Error()
			r.emit(editor.SwarmEvent{Kind: "applied", Agent: p.Agent, Path: p.Path, Failed: true, Refused: true, Text: p.Notes})
			continue
		}
		written = append(written, rel)
		if !p.Applied {
			p.Applied = true
			r.emit(editor.SwarmEvent{Kind: "applied", Agent: p.Agent, Path: p.Path, Text: "written in " + r.st.Worktree})
		}
	}
	commit, excluded, err := commitRound(ctx, r.o.cfg.Repo, r.st, written)
	if err != nil {
		return err
	}
	if msg := git.ExcludedMessage(excluded); msg != "" {
		r.emit(editor.SwarmEvent{Kind: "commit", Failed: true, Text: "not committed: " + msg})
	}
	if commit != "" {
		r.st.Commits = append(r.st.Commits, commit)
		r.emit(editor.SwarmEvent{Kind: "commit", Text: fmt.Sprintf("%s on %s: %s", commit[:12], r.st.Branch, strings.Join(written, ", "))})
	}
	if err := r.save(); err != nil {
		return err
	}
	if err := r.gate(ctx, written); err != nil {
		return fmt.Errorf("quality gates after round %d: %w", r.st.Round, err)
	}
	for _, p := range r.st.Proposals {
		if p.Round == r.st.Round && p.Action != "" {
			if err := r.eng.Resolve(ctx, p, r.st.Arbiter); err != nil {
				return fmt.Errorf("resolve proposal %s: %w", p.ID, err)
			}
		}
	}
	return nil
}
