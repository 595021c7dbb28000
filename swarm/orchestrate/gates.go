package orchestrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
)

// quality is the gates' configuration: the Config's, the guardrails' (a
// trusted project's), or the repository's configuration read untrusted
// (its commands ignored: detected gates only), as a workflow's pulses.
func (o *Orchestrator) quality() (tools.Quality, error) {
	if o.cfg.Quality != nil {
		return *o.cfg.Quality, nil
	}
	q, err := tools.ProjectQuality(o.cfg.Guardrails, o.cfg.Repo.Top())
	if err != nil {
		return tools.Quality{}, fmt.Errorf("read the quality gates' configuration: %w; fix it, then resume the swarm", err)
	}
	return q, nil
}

// gateSession is a session on the swarm's worktree whose commands run
// confined by Config.Commands, filtering by the swarm's baselines.
func (r *run) gateSession() (*tools.Session, error) {
	rules, err := r.o.guardrailsNow()
	if err != nil {
		return nil, err
	}
	var protected []string
	for _, g := range rules {
		protected = append(protected, g.ProtectedPaths()...)
	}
	sess, err := tools.NewSession(tools.SessionConfig{Root: r.st.Worktree, Mode: tools.ModeYolo, Protected: protected,
		Commands: r.o.cfg.Commands, GitCommonDir: r.o.cfg.Repo.CommonDir()})
	if err != nil {
		return nil, fmt.Errorf("quality gates' session in %s: %w", r.st.Worktree, err)
	}
	sess.SetBaselines(r.st.Baselines)
	return sess, nil
}

// runGates runs the quality gates over changed in the swarm's worktree
// (full: over the whole project).
func (r *run) runGates(ctx context.Context, changed []string, full bool) (verify.GateRun, error) {
	run, _, err := r.runGatesWith(ctx, changed, full, false)
	return run, err
}

// runGatesWith is runGates, also returning the configuration it used;
// held: HeldGates (the worktree holds the commit the gates test).
func (r *run) runGatesWith(ctx context.Context, changed []string, full, held bool) (verify.GateRun, verify.Gates, error) {
	q, err := r.o.quality()
	if err != nil {
		return verify.GateRun{}, verify.Gates{}, err
	}
	sess, err := r.gateSession()
	if err != nil {
		return verify.GateRun{}, verify.Gates{}, err
	}
	defer sess.Close()
	g := q.Gates
	g.Full = g.Full || full
	if !held {
		run := sess.QualityGates(ctx, g, changed)
		return run, g, ctx.Err()
	}
	// the gates test the round's commit as the worktree holds it: the
	// gates' commands (the project's tests) must leave it so
	dirty := func(ctx context.Context) ([]string, error) {
		return r.o.cfg.Repo.ChangedPaths(ctx, r.st.Worktree, "HEAD")
	}
	before, err := dirty(ctx)
	if err != nil {
		return verify.GateRun{}, g, fmt.Errorf("the swarm's worktree %s: %w", r.st.Worktree, err)
	}
	run, err := sess.HeldGates(ctx, g, changed, before, dirty)
	return run, g, err
}

// baseline runs the gates once before the swarm's first write, on the
// branch as it starts: what fails then is pre-existing, recorded as the
// swarm's baselines, and does not count against its rounds.
func (r *run) baseline(ctx context.Context, paths []string) error {
	if r.st.Baselined || len(paths) == 0 {
		return nil
	}
	run, err := r.runGates(ctx, paths, true)
	if err != nil {
		return err
	}
	var found []tools.Baseline
	for _, rep := range run.Reports {
		if rep.Status == verify.StatusError {
			continue
		}
		for _, b := range rep.Baselines() {
			found = append(found, tools.Baseline{ID: fmt.Sprintf("baseline-%d", len(found)+1), IssueType: b.IssueType,
				Source: b.Source, Pattern: b.Pattern, FilePath: b.FilePath, Description: b.Description})
		}
	}
	r.st.Baselines, r.st.Baselined = found, true
	text := "baseline before the first write: " + run.Summary()
	if len(found) > 0 {
		text += fmt.Sprintf("; %d pre-existing failure(s) recorded (they do not count against the swarm)", len(found))
	}
	r.emit(editor.SwarmEvent{Kind: "gates", Text: text})
	return r.save()
}

// gate runs the quality gates over the paths the round wrote, once per
// round commit, and records the run with the swarm.
func (r *run) gate(ctx context.Context, written []string) error {
	if len(written) == 0 || len(r.st.Commits) == 0 {
		return nil
	}
	head := r.st.Commits[len(r.st.Commits)-1]
	if r.st.GatesCommit == head {
		return nil
	}
	run, g, err := r.runGatesWith(ctx, written, false, true)
	if err != nil {
		return err
	}
	r.writeReceipt(ctx, head, g, run)
	r.st.Gates, r.st.GatesCommit, r.st.GatesRound = &run, head, r.st.Round
	text := run.Summary()
	if run.Failed() {
		text = "the round's writes fail the quality gates: " + text + "\n" + gateFailures(run)
	}
	r.emit(editor.SwarmEvent{Kind: "gates", Failed: run.Failed(), Text: text})
	return r.save()
}

// gateFailures lists a gate run's failures, one a line.
func gateFailures(run verify.GateRun) string {
	var b strings.Builder
	for _, f := range run.Findings() {
		fmt.Fprintf(&b, "- %s: %s\n", f.Check, f.Summary)
	}
	return b.String()
}

// gatesInput tells the next round's agents what the last gate run found
// failing on the branch ("" when it passed or none ran).
func (r *run) gatesInput() string {
	st := r.st
	if st.Gates == nil || !st.Gates.Failed() {
		return ""
	}
	return fmt.Sprintf("The quality gates FAIL on the swarm's branch after round %d's writes (commit %.12s): fix what broke by proposing corrected files with fs_write.\n%s",
		st.GatesRound, st.GatesCommit, gateFailures(*st.Gates))
}

// FailingGates names the checks of the last quality gate run on the
// swarm's branch that failed (none: it passed, or none ran).
func (st *State) FailingGates() []string {
	if st.Gates == nil {
		return nil
	}
	var out []string
	for _, rep := range st.Gates.Reports {
		if rep.Status != verify.StatusPass {
			out = append(out, fmt.Sprintf("%s (%s in %s: %s)", rep.Kind, rep.Check, rep.Dir, rep.Status))
		}
	}
	return out
}

// gatesReason is a done swarm's Reason when its branch fails its quality
// gates ("" when it does not).
func gatesReason(st *State) string {
	failing := st.FailingGates()
	if len(failing) == 0 {
		return ""
	}
	return fmt.Sprintf("the branch %s fails its quality gates after round %d: %s; fix it on the branch (worktree %s), or start a swarm from it: autarch swarm --base %s --allow-write TASK",
		st.Branch, st.GatesRound, strings.Join(failing, ", "), st.Worktree, st.Branch)
}
