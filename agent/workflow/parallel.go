package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/git"
)

// Parallel pulses (issue 22; README "Parallel pulses").
//
// With a workflow's parallel setting N > 1, every pulse whose dependencies
// have landed is ready; up to N run at once, each in a lane: its own
// linked worktree on its own pulse branch, made from the workflow head of
// the moment it starts (git.PulseTree; worktree and ref changes are
// serialised per repository). A pulse's agent commits its one
// Conventional Commit on its branch; the pulses then land on the workflow
// branch one at a time in plan order — one that finishes early waits for
// those before it. A pulse whose base is no longer the head is rebased (a
// clean three-way merge of trees) and its quality gates run again on the
// rebased tree; a conflict (or gates failing after the rebase) re-runs it
// on the new head, its agent told why and which files; a second conflict
// halts for a human with both sides shown.
//
// Leases. Each running pulse is leased in the store (pulse_leases) to this
// process, extended every third of Config.PulseLease while its agent runs
// and while it waits to land, released when it lands or ends. A process
// killed mid-pulse leaves the lease to expire; the pulse's worktree work is
// kept as a recovery checkpoint on its branch by Recover, and resume takes
// the pulse again from it once the lease ended. Nothing runs a pulse whose
// lease another holder still has (and the workflow's run lock keeps a
// second process off the workflow altogether).
//
// Why not the swarm's queue (swarm.Enqueue/Next): its items get random ids
// and Enqueue is not idempotent, so a resumed run could not tell whether a
// pulse was already queued without scanning every item, and two enqueues
// of one pulse would be two independently leasable items — the same pulse
// could run twice at once. The queue would also be a second source of
// truth beside the store, which already records each pulse's status and
// checkpoint in the same transaction as its lease, and it would make every
// process that runs a workflow host or reach a NATS server. A
// compare-and-set lease row in SQLite gives the same guarantees (one
// holder, expiry, extension, release) where the pulse's state lives.

// lane is one running pulse.
type laneResult struct {
	id   string
	lane int
	tree *git.PulseTree
	out  PulseOutcome
	err  error
}

// scheduler runs one workflow's pulses in parallel.
type scheduler struct {
	e        *Engine
	r        *pulseRunner
	n        int
	holder   string
	order    []PlannedPulse
	byID     map[string]PlannedPulse
	landed   map[string]bool
	running  map[string]int // id → lane
	finished map[string]laneResult
	notes    map[string]string
	lanes    []bool // busy
	results  chan laneResult
	halt     *Halt
	failure  error
	waiting  bool // a ready pulse is leased by another holder
}

// runParallel runs the pulses not done with up to n at once (see above).
func (e *Engine) runParallel(ctx context.Context, r *pulseRunner, plan []PlannedPulse, done map[string]bool, n int) error {
	ordered, err := Order(plan)
	if err != nil {
		return fmt.Errorf("plan cannot run: %w", err)
	}
	s := &scheduler{e: e, r: r, n: n, order: ordered, byID: map[string]PlannedPulse{}, landed: map[string]bool{},
		running: map[string]int{}, finished: map[string]laneResult{}, notes: map[string]string{}, lanes: make([]bool, n),
		results: make(chan laneResult, n), holder: leaseHolder()}
	for _, p := range ordered {
		s.byID[p.ID] = p
		s.landed[p.ID] = done[p.ID]
	}
	return s.run(ctx)
}

// leaseHolder names this process as a lease holder.
func leaseHolder() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%d", host, os.Getpid(), time.Now().UnixNano())
}

func (s *scheduler) run(ctx context.Context) error {
	keep := time.NewTicker(s.e.cfg.PulseLease / 3)
	defer keep.Stop()
	for {
		s.land(ctx)
		if s.allLanded() {
			return nil
		}
		if s.halt == nil && s.failure == nil && ctx.Err() == nil {
			s.startReady(ctx)
		}
		if len(s.running) == 0 {
			switch {
			case s.failure != nil:
				return s.park(ctx, s.failure)
			case s.halt != nil:
				return s.park(ctx, s.halt)
			case ctx.Err() != nil:
				return s.park(ctx, &Halt{Pulse: s.next(), Status: PulseStopped, Reason: "the workflow was stopped"})
			case !s.waiting:
				return s.park(ctx, fmt.Errorf("no pulse of the plan can start (pulses %s wait on each other)", strings.Join(s.unlanded(), ", ")))
			}
		}
		select {
		case res := <-s.results:
			s.collect(ctx, res)
		case <-keep.C:
			s.keepWaiting(ctx)
		case <-ctx.Done():
			if len(s.running) > 0 {
				s.collect(ctx, <-s.results)
			}
		}
	}
}

func (s *scheduler) allLanded() bool {
	for _, p := range s.order {
		if !s.landed[p.ID] {
			return false
		}
	}
	return true
}

// next is the first pulse in plan order not landed.
func (s *scheduler) next() string {
	for _, p := range s.order {
		if !s.landed[p.ID] {
			return p.ID
		}
	}
	return ""
}

func (s *scheduler) unlanded() []string {
	var out []string
	for _, p := range s.order {
		if !s.landed[p.ID] {
			out = append(out, p.ID)
		}
	}
	return out
}

// ready reports whether p can start: not landed, running or finished, and
// its dependencies landed.
func (s *scheduler) ready(p PlannedPulse) bool {
	if s.landed[p.ID] {
		return false
	}
	if _, ok := s.running[p.ID]; ok {
		return false
	}
	if _, ok := s.finished[p.ID]; ok {
		return false
	}
	for _, d := range p.DependsOn {
		if !s.landed[d] {
			return false
		}
	}
	return true
}

func (s *scheduler) freeLane() int {
	for i, busy := range s.lanes {
		if !busy {
			return i
		}
	}
	return -1
}

// startReady starts ready pulses in plan order while lanes are free.
func (s *scheduler) startReady(ctx context.Context) {
	s.waiting = false
	for _, p := range s.order {
		lane := s.freeLane()
		if lane < 0 {
			return
		}
		if !s.ready(p) {
			continue
		}
		sp := s.r.pulses[p.ID]
		_, err := s.e.cfg.Store.AcquireLease(ctx, sp.ID, s.r.wf.ID, s.holder, lane+1, s.e.cfg.PulseLease)
		var le *store.LeaseError
		if errors.As(err, &le) {
			s.waiting = true
			s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: p.ID, Status: "Leased",
				Text: fmt.Sprintf("held by another run until %s; it is taken when that lease ends", le.Lease.Until.Local().Format(time.TimeOnly))})
			continue
		}
		if err != nil {
			s.failure = err
			return
		}
		tree, err := s.r.gw.OpenPulseTree(ctx, p.ID)
		if err != nil {
			s.release(ctx, sp)
			s.failure = err
			return
		}
		s.lanes[lane], s.running[p.ID] = true, lane
		s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: p.ID, Status: "Lane",
			Text: fmt.Sprintf("%d of %d, on %s from %.8s, worktree %s", lane+1, s.n, tree.Branch, tree.Base, tree.Path)})
		go s.runLane(ctx, p, lane, tree, s.notes[p.ID])
	}
}

// runLane runs one pulse's agent in its worktree, its lease extended while
// it runs; a lost lease stops it.
func (s *scheduler) runLane(ctx context.Context, p PlannedPulse, lane int, tree *git.PulseTree, note string) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sp := s.r.pulses[p.ID]
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(s.e.cfg.PulseLease / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if err := s.e.cfg.Store.ExtendLease(context.WithoutCancel(ctx), sp.ID, s.holder, s.e.cfg.PulseLease); err != nil {
					cancel(fmt.Errorf("pulse %s lost its lease: %w", p.ID, err))
					return
				}
			}
		}
	}()
	lr := *s.r
	lr.tree, lr.root, lr.note = tree, tree.Path, note
	out, err := lr.RunPulse(ctx, p)
	close(stop)
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		err = cause // the lease was lost
	}
	s.results <- laneResult{id: p.ID, lane: lane, tree: tree, out: out, err: err}
}

// collect takes a lane's result: a completed pulse waits to land; any other
// end halts (no new pulse starts; the running ones finish).
func (s *scheduler) collect(ctx context.Context, res laneResult) {
	delete(s.running, res.id)
	s.lanes[res.lane] = false
	sp := s.r.pulses[res.id]
	switch {
	case res.err != nil && ctx.Err() != nil:
		s.release(ctx, sp)
	case res.err != nil:
		s.release(ctx, sp)
		if s.failure == nil {
			s.failure = fmt.Errorf("pulse %s: %w", res.id, res.err)
		}
	case res.out.Status != PulseSucceeded:
		s.release(ctx, sp)
		if s.halt == nil {
			s.halt = &Halt{Pulse: res.id, Status: res.out.Status, Reason: res.out.FailureReason}
		}
	default:
		s.finished[res.id] = res
		if err := s.e.cfg.Store.SetWaiting(ctx, sp.ID, s.holder, res.out.checkpoint.Commit); err != nil && s.failure == nil {
			s.failure = err
		}
		if s.next() != res.id {
			s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: res.id, Status: "WaitingToLand",
				Text: "after " + strings.Join(s.before(res.id), ", ") + " (plan order)"})
		}
	}
}

// before are the pulses before id in plan order that have not landed.
func (s *scheduler) before(id string) []string {
	var out []string
	for _, p := range s.order {
		if p.ID == id {
			break
		}
		if !s.landed[p.ID] {
			out = append(out, p.ID)
		}
	}
	return out
}

// keepWaiting extends the leases of pulses waiting to land.
func (s *scheduler) keepWaiting(ctx context.Context) {
	for id := range s.finished {
		if err := s.e.cfg.Store.ExtendLease(ctx, s.r.pulses[id].ID, s.holder, s.e.cfg.PulseLease); err != nil && s.failure == nil {
			s.failure = fmt.Errorf("pulse %s, waiting to land, lost its lease: %w", id, err)
		}
	}
}

func (s *scheduler) release(ctx context.Context, sp store.Pulse) {
	if err := s.e.cfg.Store.ReleaseLease(context.WithoutCancel(ctx), sp.ID, s.holder); err != nil {
		s.e.cfg.Log.Warn("release pulse lease", "pulse", sp.PlannedID, "err", err)
	}
}

// land lands the finished pulses that are next in plan order.
func (s *scheduler) land(ctx context.Context) {
	for ctx.Err() == nil && s.failure == nil {
		id := s.next()
		res, ok := s.finished[id]
		if !ok {
			return
		}
		if err := s.landOne(ctx, res); err != nil {
			s.failure = err
			return
		}
	}
}

// landOne rebases a finished pulse on the head if needed (gates again),
// lands it, or handles its conflict.
func (s *scheduler) landOne(ctx context.Context, res laneResult) error {
	sp, tree := s.r.pulses[res.id], res.tree
	rebased, err := tree.Rebase(ctx)
	var c *git.Conflict
	if errors.As(err, &c) {
		return s.conflict(ctx, res, c.Error()+".", c.Files, c.Sides())
	}
	if err != nil {
		return err
	}
	if rebased {
		// Recover tells a landing that a crash cut short by this commit.
		tip, err := tree.Tip(ctx)
		if err != nil {
			return err
		}
		if err := s.e.cfg.Store.SetWaiting(ctx, sp.ID, s.holder, tip); err != nil {
			return err
		}
		s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: res.id, Status: "Rebased",
			Text: fmt.Sprintf("rebased onto the workflow head %.8s without conflicts; quality gates run again", tree.Base)})
		if fails, err := s.gatesAfterRebase(ctx, res); err != nil {
			return err
		} else if fails != "" {
			return s.conflict(ctx, res, "after rebasing it onto the pulses that landed first, the quality gates failed:\n"+fails, nil, fails)
		}
	}
	cp, err := tree.Land(ctx)
	if err != nil {
		return err
	}
	s.e.recordReceipt(ctx, s.r.wf, sp, cp.Commit)
	out := res.out
	end := store.PulseEnd{Status: PulseSucceeded, Summary: out.Summary, CheckpointCommit: cp.Commit, Diff: diffStats(cp.Stats),
		UnresolvedIssues: out.Unresolved, DiffPatch: s.r.diffPatch(ctx, sp, cp)}
	if err := s.e.cfg.Store.FinishPulse(context.WithoutCancel(ctx), sp.ID, end); err != nil {
		return err
	}
	s.release(ctx, sp)
	s.landed[res.id] = true
	delete(s.finished, res.id)
	s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: res.id, Status: string(PulseSucceeded),
		Unresolved: len(out.Unresolved), Text: fmt.Sprintf("%s (%s; landed %d of %d)", out.Summary, s.r.committed(cp), s.landedCount(), len(s.order))})
	if err := s.recheck(ctx); err != nil {
		return err
	}
	if len(out.Unresolved) > 0 && s.halt == nil {
		s.halt = &Halt{Pulse: res.id, Status: PulseSucceeded, Reason: fmt.Sprintf("completed with %s; a human must review before the next pulse", plural(len(out.Unresolved), "unresolved issue"))}
	}
	return nil
}

// recheck tries the pulses waiting to land against the new head: one that
// no longer applies is re-run now rather than at its turn.
func (s *scheduler) recheck(ctx context.Context) error {
	for _, p := range s.order {
		res, ok := s.finished[p.ID]
		if !ok {
			continue
		}
		err := res.tree.Applies(ctx)
		var c *git.Conflict
		if errors.As(err, &c) {
			err = s.conflict(ctx, res, c.Error()+".", c.Files, c.Sides())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *scheduler) landedCount() int {
	n := 0
	for _, ok := range s.landed {
		if ok {
			n++
		}
	}
	return n
}

// gatesAfterRebase runs the quality gates on the rebased tree; the
// failures, or "" when they pass.
func (s *scheduler) gatesAfterRebase(ctx context.Context, res laneResult) (string, error) {
	sp := s.r.pulses[res.id]
	conv, err := s.e.open(ctx, s.r.wf, StagePulsing, sp.ID, talkOptions{Root: res.tree.Path, Baselines: s.r.baselines})
	if err != nil {
		return "", err
	}
	defer conv.close()
	lr := *s.r
	lr.tree, lr.root = res.tree, res.tree.Path
	run, err := lr.runGates(ctx, conv.sess, sp)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range GateFailures(run) {
		fmt.Fprintf(&b, "- %s: %s\n", f.Tool, f.Summary)
	}
	return b.String(), nil
}

// conflict handles a pulse whose change does not land on the new head: the
// first time it runs again from the head, its agent told why; the second
// time the workflow halts with both sides shown.
func (s *scheduler) conflict(ctx context.Context, res laneResult, why string, files []string, sides string) error {
	sp, tree := s.r.pulses[res.id], res.tree
	delete(s.finished, res.id)
	n, err := s.e.cfg.Store.AddConflict(ctx, sp.ID)
	if err != nil {
		return err
	}
	landedFirst := strings.Join(s.landedIDs(), ", ")
	if n >= 2 {
		reason := fmt.Sprintf("pulse %s does not apply on the workflow head a second time: %s Its work is kept on branch %s; merge it by hand onto %s, then resume.\n%s",
			res.id, why, tree.Branch, s.r.gw.Branch, sides)
		if err := tree.Remove(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		if err := s.e.cfg.Store.FinishPulse(context.WithoutCancel(ctx), sp.ID, store.PulseEnd{Status: PulseFailed, FailureReason: reason,
			CheckpointCommit: res.out.checkpoint.Commit, Diff: diffStats(res.out.checkpoint.Stats)}); err != nil {
			return err
		}
		s.release(ctx, sp)
		s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: res.id, Status: "Conflict", Text: reason})
		if s.halt == nil {
			s.halt = &Halt{Pulse: res.id, Status: PulseFailed, Reason: reason}
		}
		return nil
	}
	if err := tree.Discard(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	if err := s.e.cfg.Store.FinishPulse(context.WithoutCancel(ctx), sp.ID, store.PulseEnd{Status: PulseStopped,
		FailureReason: "re-run on the new workflow head: " + why}); err != nil {
		return err
	}
	note := fmt.Sprintf("Your earlier run of this pulse was not landed: %s Pulses %s landed on the workflow branch first. "+
		"The worktree now holds the new workflow head without your earlier changes: implement the pulse again on top of what is there", why, landedFirst)
	if len(files) > 0 {
		note += fmt.Sprintf(" (look at %s first: they changed under you)", strings.Join(files, ", "))
	}
	s.notes[res.id] = note + "."
	s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: res.id, Status: "Conflict",
		Text: "re-run on the new head: " + why})
	return nil
}

func (s *scheduler) landedIDs() []string {
	var out []string
	for _, p := range s.order {
		if s.landed[p.ID] {
			out = append(out, p.ID)
		}
	}
	return out
}

// park ends a run that halted, failed or was stopped: pulses that finished
// but could not land keep their commit on their branch (resume runs them
// again from it) and give up their lease.
func (s *scheduler) park(ctx context.Context, err error) error {
	ctx = context.WithoutCancel(ctx)
	for id, res := range s.finished {
		sp := s.r.pulses[id]
		reason := fmt.Sprintf("finished but not landed: %s stopped the run first; its commit is kept on %s", s.next(), res.tree.Branch)
		rerr := res.tree.Remove(ctx)
		if rerr == nil {
			rerr = s.e.cfg.Store.FinishPulse(ctx, sp.ID, store.PulseEnd{Status: PulseStopped, FailureReason: reason,
				CheckpointCommit: res.out.checkpoint.Commit, Diff: diffStats(res.out.checkpoint.Stats)})
		}
		if rerr != nil {
			return errors.Join(err, rerr)
		}
		s.release(ctx, sp)
		s.e.emit(Event{Kind: "pulse", WorkflowID: s.r.wf.ID, Stage: string(StagePulsing), PulseID: id, Status: string(PulseStopped), Text: reason})
	}
	return err
}

// recoverPulse keeps the uncommitted work of a pulse whose process died as
// a recovery checkpoint on its branch: in the workflow's worktree, or in
// the pulse's own (a parallel pulse), which is then removed.
func (e *Engine) recoverPulse(ctx context.Context, gw *git.Workflow, p store.Pulse) (git.Checkpoint, error) {
	if p.WorktreePath != e.cfg.Repo.PulseTreePath(gw.Name, p.PlannedID) {
		return gw.RecoveryCheckpoint(ctx, p.PlannedID, store.InterruptedReason)
	}
	if kept, err := gw.HasPulseBranch(ctx, p.PlannedID); err != nil || !kept {
		return git.Checkpoint{}, err // no branch: nothing was kept (a conflicting run's, discarded)
	}
	pt, err := gw.PulseTreeAt(ctx, p.PlannedID)
	if err != nil {
		return git.Checkpoint{}, err
	}
	return pt.Recovery(ctx, store.InterruptedReason)
}

// laneView is what the side panel shows of parallel pulses: lanes, what
// each pulse waits on, the merge order.
type laneView struct {
	parallel int
	now      time.Time
	leases   map[string]store.Lease // by store pulse id
	order    map[string]int         // planned id → merge order (1-based)
	status   map[string]PulseStatus // by planned id
	deps     map[string][]string
	ordered  []string
}

func (e *Engine) lanes(ctx context.Context, wf store.Workflow, pulses []store.Pulse) (laneView, error) {
	v := laneView{now: time.Now(), leases: map[string]store.Lease{}, order: map[string]int{}, status: map[string]PulseStatus{}, deps: map[string][]string{}}
	var err error
	if v.parallel, err = e.cfg.Store.Parallel(ctx, wf.ID); err != nil {
		return v, err
	}
	leases, err := e.cfg.Store.Leases(ctx, wf.ID)
	if err != nil {
		return v, err
	}
	for _, l := range leases {
		v.leases[l.PulseID] = l
	}
	planned := make([]PlannedPulse, len(pulses))
	for i, p := range pulses {
		planned[i] = PlannedPulse{ID: p.PlannedID, DependsOn: p.DependsOn}
		v.status[p.PlannedID], v.deps[p.PlannedID] = p.Status, p.DependsOn
	}
	ordered, err := Order(planned)
	if err != nil {
		ordered = planned // a plan that cannot run is shown as written
	}
	for i, p := range ordered {
		v.order[p.ID] = i + 1
		v.ordered = append(v.ordered, p.ID)
	}
	return v, nil
}

// fill sets a pulse view's lane, worker, waiting-on and merge order.
func (v laneView) fill(pv *editor.PulseView, p store.Pulse) {
	pv.MergeOrder = v.order[p.PlannedID]
	if l, ok := v.leases[p.ID]; ok && l.Holder != "" && l.Until.After(v.now) && p.Status == PulseRunning {
		pv.Lane, pv.Worker = l.Lane, l.Holder
	}
	if p.Status == PulseSucceeded {
		return
	}
	for _, d := range v.deps[p.PlannedID] {
		if v.status[d] != PulseSucceeded {
			pv.WaitingOn = append(pv.WaitingOn, d)
		}
	}
	if l := v.leases[p.ID]; len(pv.WaitingOn) > 0 || p.Status != PulseRunning || l.Waiting == "" {
		return
	}
	for _, id := range v.ordered[:pv.MergeOrder-1] { // finished early: lands after these
		if v.status[id] != PulseSucceeded {
			pv.WaitingOn = append(pv.WaitingOn, id)
		}
	}
}

// recoverLanded finishes, as Succeeded, a parallel pulse whose process died
// after landing it and before recording it: its branch is gone and the
// commit it waited to land with is on the workflow branch.
func (e *Engine) recoverLanded(ctx context.Context, gw *git.Workflow, p store.Pulse) (bool, error) {
	if p.WorktreePath != e.cfg.Repo.PulseTreePath(gw.Name, p.PlannedID) {
		return false, nil
	}
	if kept, err := gw.HasPulseBranch(ctx, p.PlannedID); err != nil || kept {
		return false, err
	}
	l, err := e.cfg.Store.Lease(ctx, p.ID)
	if errors.Is(err, store.ErrNotFound) || err == nil && l.Waiting == "" {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if landed, err := gw.Landed(ctx, l.Waiting); err != nil || !landed {
		return false, err
	}
	c, err := e.cfg.Repo.Commit(ctx, l.Waiting)
	if err != nil {
		return false, err
	}
	end := store.PulseEnd{Status: PulseSucceeded, Summary: c.Summary, CheckpointCommit: c.Hash}
	if st, err := e.cfg.Repo.DiffStats(ctx, c.Hash+"^", c.Hash); err == nil {
		end.Diff = diffStats(st)
	}
	if err := e.cfg.Store.FinishPulse(ctx, p.ID, end); err != nil {
		return false, err
	}
	e.cfg.Log.Info("recovered a pulse that had landed", "workflow", gw.Name, "pulse", p.PlannedID, "commit", c.Hash)
	return true, nil
}
