package run

import (
	"context"
	"errors"
	"sync"
	"time"
)

// WatchStop polls stopped every poll until it reports true, then calls
// cancel once; it returns then or when ctx ends. A run marked Stopped in
// its record (by this process or another) is cancelled this way.
func WatchStop(ctx context.Context, poll time.Duration, stopped func(context.Context) bool, cancel func()) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if stopped(ctx) {
				cancel()
				return
			}
		}
	}
}

// Active is the runs this process runs, by run id, each with the cancel
// of its context: a stop in this process cancels the run at once instead
// of waiting for WatchStop. The zero value is ready.
type Active struct {
	mu   sync.Mutex
	runs map[string]context.CancelCauseFunc
}

// Add records a running run; the returned func removes it. ok is false
// (and nothing recorded) when this process runs it already.
func (a *Active) Add(id string, cancel context.CancelCauseFunc) (remove func(), ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.runs == nil {
		a.runs = map[string]context.CancelCauseFunc{}
	}
	if a.runs[id] != nil {
		return func() {}, false
	}
	a.runs[id] = cancel
	return func() {
		a.mu.Lock()
		delete(a.runs, id)
		a.mu.Unlock()
	}, true
}

// Cancel cancels the run id with cause if this process runs it, and
// reports whether it did.
func (a *Active) Cancel(id string, cause error) bool {
	a.mu.Lock()
	cancel := a.runs[id]
	a.mu.Unlock()
	if cancel != nil {
		cancel(cause)
	}
	return cancel != nil
}

// Claims are run locks taken ahead of the run that will use them (a start
// takes the lock so that no Recover sees the run Running and unlocked
// before it runs). The zero value is ready.
type Claims struct {
	mu    sync.Mutex
	locks map[string]func()
}

// Put keeps the unlock of a run's lock until Claim.
func (h *Claims) Put(id string, unlock func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.locks == nil {
		h.locks = map[string]func(){}
	}
	h.locks[id] = unlock
}

// Claim hands over the lock kept for id, if any.
func (h *Claims) Claim(id string) (unlock func(), ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	unlock, ok = h.locks[id]
	delete(h.locks, id)
	return unlock, ok
}

// ErrClosing is Group.Go's error once the group is closing.
var ErrClosing = errors.New("the session is closing")

// Group runs work in the background for the lifetime of a session: Close
// cancels it and waits for it. The zero value is ready.
type Group struct {
	mu     sync.Mutex
	closed bool
	runs   map[uint64]context.CancelFunc
	next   uint64
	work   sync.WaitGroup
}

// Go runs fn in the background until it returns or Close cancels it;
// ctx's values are kept, not its cancellation.
func (g *Group) Go(ctx context.Context, fn func(ctx context.Context)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return ErrClosing
	}
	if g.runs == nil {
		g.runs = map[uint64]context.CancelFunc{}
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	id := g.next
	g.next++
	g.runs[id] = cancel
	g.work.Add(1)
	go func() {
		defer g.work.Done()
		defer func() {
			g.mu.Lock()
			delete(g.runs, id)
			g.mu.Unlock()
			cancel()
		}()
		fn(ctx)
	}()
	return nil
}

// Cancel cancels the group's work and refuses more.
func (g *Group) Cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	for _, cancel := range g.runs {
		cancel()
	}
}

// Wait waits at most wait for the group's work to return and reports
// whether it did.
func (g *Group) Wait(wait time.Duration) bool {
	done := make(chan struct{})
	go func() { g.work.Wait(); close(done) }()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// Sleep waits for d, or until ctx ends (its cause is returned then).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// Drain waits, with no limit, for the group's work to return.
func (g *Group) Drain() { g.work.Wait() }

// Close cancels the group's work, refuses more, and waits at most wait
// for it to return; it reports whether everything returned in time.
func (g *Group) Close(wait time.Duration) bool {
	g.Cancel()
	return g.Wait(wait)
}
