package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/tools/team"
	"github.com/autarch-dev/autarch/workspace/git"
)

// A fleet run's durable state is its clone's workflow store (the clone,
// and so the store, holds this run alone): conversation, cards, plan,
// pulse statuses, questions, usage. A worker saves a consistent copy of
// it (store.Snapshot, SQLite's VACUUM INTO) to JetStream whenever the
// run marks progress (a stage, a card, a pulse, a job's branch or
// commit), after pushing the branch the copy may name; a takeover
// fetches the copy into its fresh clone, checks it as hostile input, fits
// it to its own disk and resumes the run as autarch resume does.

// runState saves the run's store for its claim.
type runState struct {
	cl   *fleet.Claim
	p    *pusher
	file string // the clone's store

	mu sync.Mutex
	st *store.Store // a connection of its own, opened at the first save
}

// save pushes the run's branch and saves its store: the copy is taken
// first, so every commit it names is on the remote before it is saved.
func (s *runState) save(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		st, err := store.Open(ctx, s.file, store.Options{})
		if err != nil {
			return err
		}
		s.st = st
	}
	snap := filepath.Join(filepath.Dir(s.file), "fleet-snapshot.db")
	os.Remove(snap)
	defer os.Remove(snap)
	if err := s.st.Snapshot(ctx, snap); err != nil {
		return err
	}
	if err := s.p.sync(ctx); err != nil {
		return err
	}
	return s.cl.SaveState(ctx, snap, s.p.pushedCommits())
}

// pushedCommits counts the run's commits on the remote.
func (p *pusher) pushedCommits() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.commits
}

func (s *runState) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		s.st.Close()
		s.st = nil
	}
}

// marksProgress reports whether a line the run printed marks durable
// progress: a stage ("▶"), a card ("■"), a pulse or a job's branch,
// commit, plan ("◆").
func marksProgress(line string) bool {
	return strings.HasPrefix(line, "▶") || strings.HasPrefix(line, "■") || strings.HasPrefix(line, "◆")
}

// takeover is what a worker resumes: the workflow's name or the job's id
// ("" to start the run afresh) and the run's branch tip it fetched. ended
// is set when the state says the run ended (its worker was lost before it
// could record that): nothing is left to run.
type takeover struct {
	ref, branch, tip string
	ended            fleet.State
	why              string
}

// pushed is what the pusher starts from: the fetched tip is on the remote.
func (t takeover) pushed() map[string]string {
	m := map[string]string{}
	if t.branch != "" && t.tip != "" {
		m[t.branch] = t.tip
	}
	return m
}

// checkout clones the run's repository into dir. A run taken over with
// saved state is cloned at its base commit with its state adopted and its
// branch fetched, to be resumed; otherwise (a first attempt, no state, a
// state that cannot be used: say tells why) it starts from the last
// checkpoint its branch has on the remote, or from its base.
func (w *fleetWorker) checkout(ctx context.Context, run fleet.Run, dir string, say func(string)) (*git.Repo, takeover, error) {
	if run.Saved != nil && run.Spec.BaseCommit != "" {
		repo, err := git.Clone(ctx, run.Spec.Repo, dir, run.Spec.BaseCommit, fleetBase, git.Config{})
		if err != nil {
			return nil, takeover{}, err
		}
		t, err := adoptState(ctx, w.f, run, repo)
		if err == nil {
			say(fmt.Sprintf("resumes from the state saved by attempt %d, at the last checkpoint pushed to %s", run.Saved.Attempt, orDash(run.Branch)))
			return repo, t, nil
		}
		if ctx.Err() != nil {
			return nil, takeover{}, err
		}
		say("the run's saved state cannot be used (" + err.Error() + "): it starts again from the last checkpoint pushed")
		w.log.Warn("fleet: the saved state of a run is refused", "run", run.ID, "err", err)
		if err := os.RemoveAll(dir); err != nil {
			return nil, takeover{}, err
		}
	}
	rev := run.Spec.BaseCommit
	if rev == "" {
		rev = run.Spec.Base
	}
	if rev == "" {
		rev = "HEAD"
	}
	if run.Branch != "" {
		rev = run.Branch // the last checkpoint an earlier attempt pushed
		say("continues from the last checkpoint pushed to " + run.Branch)
	}
	repo, err := git.Clone(ctx, run.Spec.Repo, dir, rev, fleetBase, git.Config{})
	return repo, takeover{}, err
}

var jobIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{16}$`) })

// adoptState fetches the run's saved state into the clone's store, checks
// it (another machine wrote it: its schema must be this build's, its one
// run the fleet run's, its names and branch valid as any agent input),
// creates the run's branch at the tip the remote has, and fits the store
// to this clone (store.Takeover).
func adoptState(ctx context.Context, f *fleet.Fleet, run fleet.Run, repo *git.Repo) (takeover, error) {
	if err := os.MkdirAll(repo.StateDir(), 0o700); err != nil {
		return takeover{}, err
	}
	file := store.Path(repo.StateDir())
	if ok, err := f.FetchState(ctx, run, file); err != nil || !ok {
		return takeover{}, errors.Join(err, errors.New("no saved state"))
	}
	if err := store.CheckSnapshot(ctx, file); err != nil {
		return takeover{}, err
	}
	st, err := store.Open(ctx, file, store.Options{})
	if err != nil {
		return takeover{}, err
	}
	defer st.Close()
	t, err := stateRun(ctx, st, run)
	if err != nil {
		return takeover{}, err
	}
	if t.branch != "" {
		tip, err := repo.ResolveCommit(ctx, "refs/remotes/origin/"+t.branch)
		if err != nil {
			return takeover{}, fmt.Errorf("the run's branch %s is not on the remote: %w", t.branch, err)
		}
		if ok, err := repo.IsAncestor(ctx, run.Spec.BaseCommit, tip); err != nil || !ok {
			return takeover{}, errors.Join(err, fmt.Errorf("the remote's %s does not start from the run's base commit", t.branch))
		}
		known, err := stateCommits(ctx, st, t.ref, run.Spec.Kind)
		if err != nil {
			return takeover{}, err
		}
		if tip != run.Spec.BaseCommit && !known[tip] {
			return takeover{}, fmt.Errorf("the remote's %s ends in %.12s, a commit the saved state does not know (its worker was lost between a push and a save)", t.branch, tip)
		}
		if _, err := repo.Git(ctx, repo.Top(), nil, "update-ref", "refs/heads/"+t.branch, tip, ""); err != nil {
			return takeover{}, err
		}
		t.tip = tip
	}
	landed := func(commit string) bool {
		ok, err := repo.IsAncestor(ctx, commit, t.tip)
		return t.tip != "" && err == nil && ok
	}
	if _, err := st.Takeover(ctx, store.Takeover{WorkflowTree: repo.WorktreePath, Landed: landed,
		JobTree: func(id string) string { return job.WorktreePath(repo, id) }}); err != nil {
		return takeover{}, err
	}
	return t, nil
}

// stateRun checks that the store holds the fleet run and only it, with
// valid names, and says what to resume.
func stateRun(ctx context.Context, st *store.Store, run fleet.Run) (takeover, error) {
	wfs, err := st.Workflows(ctx)
	if err != nil {
		return takeover{}, err
	}
	jobs, err := st.Jobs(ctx)
	if err != nil {
		return takeover{}, err
	}
	if len(wfs)+len(jobs) != 1 {
		return takeover{}, fmt.Errorf("the state holds %d workflows and %d jobs, not the one run", len(wfs), len(jobs))
	}
	var t takeover
	switch {
	case run.Spec.Kind == fleet.Workflow && len(wfs) == 1:
		wf := wfs[0]
		if err := git.ValidateName(wf.Name); err != nil {
			return t, err
		}
		if run.Spec.Name != "" && wf.Name != run.Spec.Name {
			return t, fmt.Errorf("the state's workflow is %s, the run's %s", wf.Name, run.Spec.Name)
		}
		if wf.BaseCommit != run.Spec.BaseCommit {
			return t, fmt.Errorf("the state's workflow starts from %.12s, the run from %.12s", wf.BaseCommit, run.Spec.BaseCommit)
		}
		pulses, err := st.WorkflowPulses(ctx, wf.ID)
		if err != nil {
			return t, err
		}
		for _, p := range pulses {
			if err := git.ValidatePulseID(p.PlannedID); err != nil {
				return t, err
			}
		}
		t.ref = wf.Name
		switch wf.Status {
		case store.WorkflowCompleted:
			t.ended, t.why = fleet.Completed, "completed on "+run.Branch+" (its worker was lost before it recorded so)"
		case store.WorkflowAbandoned:
			t.ended, t.why = fleet.Failed, "the workflow was abandoned ("+wf.StatusReason+"); submit it again once the cause is fixed"
		}
		if run.Branch != "" {
			t.branch = git.WorkflowBranch(wf.Name)
		}
	case run.Spec.Kind == fleet.Job && len(jobs) == 1:
		j := jobs[0]
		if !jobIDRE().MatchString(j.ID) {
			return t, fmt.Errorf("the state's job id %q is not one", j.ID)
		}
		if j.BaseCommit != run.Spec.BaseCommit {
			return t, fmt.Errorf("the state's job starts from %.12s, the run from %.12s", j.BaseCommit, run.Spec.BaseCommit)
		}
		if j.Branch != "" && !validJobBranch(j.ID, j.Branch) {
			return t, fmt.Errorf("the state's job branch %q is not one of its job", j.Branch)
		}
		t.ref, t.branch = j.ID, j.Branch
		if j.Status == store.JobDone {
			t.ended, t.why = fleet.Completed, "completed on "+run.Branch+" (its worker was lost before it recorded so)"
		}
	default:
		return t, fmt.Errorf("the state holds no %s", run.Spec.Kind)
	}
	if t.branch != run.Branch && (run.Branch != "" || t.branch != "" && run.Spec.Kind == fleet.Job) {
		return t, fmt.Errorf("the state's branch %q is not the run's %s", t.branch, run.Branch)
	}
	return t, nil
}

// stateCommits are the commits the state knows it made on the run's
// branch: the landed pulses' checkpoints and the reverts' commits of a
// workflow, a job's commits. The remote's branch must end in one of them
// (or at the base): a commit pushed after the state was saved would be
// made again by the resumed run.
func stateCommits(ctx context.Context, st *store.Store, ref string, kind fleet.Kind) (map[string]bool, error) {
	known := map[string]bool{}
	if kind == fleet.Job {
		commits, err := st.JobCommits(ctx, ref)
		for _, c := range commits {
			known[c.Hash] = true
		}
		return known, err
	}
	wf, err := st.WorkflowByName(ctx, ref)
	if err != nil {
		return nil, err
	}
	pulses, err := st.WorkflowPulses(ctx, wf.ID)
	if err != nil {
		return nil, err
	}
	for _, p := range pulses {
		if p.Status == store.PulseSucceeded && p.CheckpointCommit != "" {
			known[p.CheckpointCommit] = true
		}
	}
	reverts, err := st.Reverts(ctx, wf.ID)
	for _, r := range reverts {
		for _, c := range r.RevertCommits {
			known[c.Commit] = true
		}
	}
	return known, err
}

// jobBranchNameRE is what create_branch makes after ai/<id8>/.
var jobBranchNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}(/[A-Za-z0-9][A-Za-z0-9._-]{0,99})*$`)
})

func validJobBranch(id, branch string) bool {
	name, ok := strings.CutPrefix(branch, team.JobBranch(id, ""))
	return ok && jobBranchNameRE().MatchString(name) && !strings.Contains(name, "..") &&
		!strings.HasSuffix(name, ".lock") && !strings.HasSuffix(name, ".")
}

// resumeArgs are autarch resume's arguments for a taken-over run.
func resumeArgs(dir string, s fleet.Spec, ref string) []string {
	return append(commonArgs(s, []string{"--root", dir}), ref)
}
