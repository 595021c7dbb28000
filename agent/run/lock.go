package run

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrLocked means another live process holds a run's lock.
var ErrLocked = errors.New("the run is running in another autarch process")

// IsLocked reports whether err says another live process holds the lock.
func IsLocked(err error) bool { return errors.Is(err, ErrLocked) }

// Locks are the run locks of one state directory: one file per run, named
// by Ref.LockName.
type Locks struct{ dir string }

// NewLocks makes the locks kept in dir (created on first use).
func NewLocks(dir string) Locks { return Locks{dir: dir} }

// Path is the lock file of a run.
func (l Locks) Path(name string) string { return filepath.Join(l.dir, name+".lock") }

// Take takes the run lock named name, without waiting: ErrLocked when
// another live process holds it.
func (l Locks) Take(name string) (unlock func(), err error) { return Lock(l.Path(name), 0) }

// IfFree runs fn holding the run lock named name, unless a live process
// holds it: then fn does not run (ran false, err nil). Recovering the
// runs a dead process left Running is this, run by run. err is the lock's
// error when ran is false, fn's when ran is true.
func (l Locks) IfFree(name string, fn func() error) (ran bool, err error) {
	unlock, err := l.Take(name)
	if IsLocked(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer unlock()
	return true, fn()
}

// Held reports whether a live process holds the run lock named name.
func (l Locks) Held(name string) bool { return Held(l.Path(name)) }

// Lock takes an exclusive flock on the file at path, created if need be,
// held until unlock and released by the operating system when the
// process dies (even by SIGKILL). It retries for up to wait (0: once) and
// returns ErrLocked when another live process holds it.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	end := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || !time.Now().Before(end) {
			break
		}
		time.Sleep(20 * time.Millisecond) // another process probes the lock for a moment
	}
	f.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, ErrLocked
	}
	return nil, fmt.Errorf("lock %s: %w", path, err)
}

// Held reports whether a live process holds the lock file at path (a
// missing file is not held).
func Held(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
