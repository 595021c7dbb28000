package workflow

import (
	"path/filepath"

	"github.com/autarch-dev/autarch/agent/run"
)

// errLocked means another live process runs the workflow: run.IsLocked
// says so of it, with the workflow's own words.
var errLocked error = lockedError{}

type lockedError struct{}

func (lockedError) Error() string { return "the workflow is running in another autarch process" }
func (lockedError) Unwrap() error { return run.ErrLocked }

// lockRun takes the workflow's run lock (the run kernel's: an flock on a
// file in the state directory's locks, held while a process runs the
// workflow and released when that process dies, even by SIGKILL), so a
// lock that can be taken means no one is running it.
func (e *Engine) lockRun(id string) (unlock func(), err error) {
	unlock, err = e.locks().Take(lockName(id))
	if run.IsLocked(err) {
		return nil, errLocked
	}
	return unlock, err
}

// locks are the run locks of the engine's state directory (a job's are
// there too).
func (e *Engine) locks() run.Locks { return run.NewLocks(filepath.Join(e.stateDir(), "locks")) }

// lockName is the name of a workflow's run lock.
func lockName(id string) string { return run.Ref{Kind: run.KindWorkflow, ID: id}.LockName() }
