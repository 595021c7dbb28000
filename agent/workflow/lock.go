package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// errLocked means another live process runs the workflow.
var errLocked = errors.New("the workflow is running in another autarch process")

// lockRun takes the workflow's run lock: an flock on a file in the state
// directory, held while a process runs the workflow and released by the
// kernel when that process dies (even by SIGKILL), so a lock that can be
// taken means no one is running it.
func (e *Engine) lockRun(id string) (unlock func(), err error) {
	dir := filepath.Join(e.stateDir(), "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock workflow %s: %w", id, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, id+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock workflow %s: %w", id, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, fmt.Errorf("lock workflow %s: %w", id, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Lock takes the run lock named id for another kind of durable run (a
// job's, "job-"+its id) with the same guarantee: released when the
// holding process dies.
func (e *Engine) Lock(id string) (unlock func(), err error) { return e.lockRun(id) }

// IsLocked reports whether err says another live process holds the lock.
func IsLocked(err error) bool { return errors.Is(err, errLocked) }
