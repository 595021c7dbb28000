package orchestrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace"
)

// run is one process's run of a swarm.
type run struct {
	o   *Orchestrator
	s   *store
	st  *State
	eng Engine
	// spent counts the tokens of this run's model calls (the budget is
	// per run: a resume starts a new one).
	spent int
}

func (r *run) emit(ev editor.SwarmEvent) {
	ev.SwarmID = r.st.ID
	if ev.Round == 0 {
		ev.Round = r.st.Round
	}
	r.o.emit(r.s, ev)
}

func (r *run) save() error { return r.s.saveState(r.st) }

// round runs the current round's remaining stages, then moves to the next.
func (r *run) round(ctx context.Context) error {
	st := r.st
	if st.Stage == stageAgents {
		if st.Turn == 0 {
			if err := r.eng.SetPhase(ctx, st.Round); err != nil {
				return fmt.Errorf("set phase %d: %w", st.Round, err)
			}
			r.emit(editor.SwarmEvent{Kind: "round", Text: fmt.Sprintf("round %d of %d (phase %d)", st.Round, st.Rounds, st.Round)})
		}
		for st.Turn < len(st.Agents) {
			if err := r.turn(ctx, st.Agents[st.Turn]); err != nil {
				return err
			}
			st.Turn++
			if err := r.save(); err != nil {
				return err
			}
		}
		st.Stage = stageArbiter
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
	st.Stage, st.Turn = stageAgents, 0
	if st.Round > st.Rounds {
		st.Round = st.Rounds + 1
	}
	return r.save()
}

// collect takes the engine's queued proposals into the state: ones already
// decided (a crash before Resolve) are resolved again, identical ones
// collapse, and a later proposal of a path supersedes an undecided earlier
// one.
func (r *run) collect(ctx context.Context, root *workspace.Root) error {
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
		sp := editor.SwarmProposal{ID: p.ID, Agent: p.Agent, Round: r.st.Round, Path: p.Path, Content: p.Content, Diff: diffOf(root, p)}
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
	root, err := workspace.Open(r.st.Worktree)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := r.collect(ctx, root); err != nil {
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
	decisions, err := r.o.cfg.Arbiter(r.st.Arbiter).Decide(ctx, r.st.ID, r.st.Round, pending, record)
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

// apply writes the round's approved proposals in the worktree (only with
// AllowWrite), commits them once, and takes the decided proposals off the
// engine's queue.
func (r *run) apply(ctx context.Context) error {
	root, err := workspace.Open(r.st.Worktree)
	if err != nil {
		return err
	}
	defer root.Close()
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
		if err := applyProposal(root, *p, !strings.Contains(p.Notes, "create_dirs: false")); err != nil {
			p.Action, p.Notes = ActionReject, "approved but refused when applied: "+err.Error()
			r.emit(editor.SwarmEvent{Kind: "applied", Agent: p.Agent, Path: p.Path, Failed: true, Text: p.Notes})
			continue
		}
		rel, _ := cleanProposalPath(root, p.Path)
		written = append(written, rel)
		if !p.Applied {
			p.Applied = true
			r.emit(editor.SwarmEvent{Kind: "applied", Agent: p.Agent, Path: p.Path, Text: "written in " + r.st.Worktree})
		}
	}
	commit, err := commitRound(ctx, r.o.cfg.Repo, r.st, written)
	if err != nil {
		return err
	}
	if commit != "" {
		r.st.Commits = append(r.st.Commits, commit)
		r.emit(editor.SwarmEvent{Kind: "commit", Text: fmt.Sprintf("%s on %s: %s", commit[:12], r.st.Branch, strings.Join(written, ", "))})
	}
	if err := r.save(); err != nil {
		return err
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
