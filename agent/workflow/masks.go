package workflow

import (
	"path/filepath"
	"sync"

	"github.com/autarch-dev/autarch/tools"
)

// runMasks are what the secret-mask decisions of the runs in this process
// know, by workflow id and tree (tools.MaskState): shared by the stages
// and pulses of a run working in one worktree, so that each new session's
// first command does not walk the whole tree again (issue 35), released
// when the run ends.
type runMasks struct {
	mu    sync.Mutex
	byRun map[string]map[string]*tools.MaskState
}

// startMasks begins the mask states of the run of workflow id; the
// function it returns releases them.
func (e *Engine) startMasks(id string) func() {
	e.masks.mu.Lock()
	if e.masks.byRun == nil {
		e.masks.byRun = map[string]map[string]*tools.MaskState{}
	}
	e.masks.byRun[id] = map[string]*tools.MaskState{}
	e.masks.mu.Unlock()
	return func() {
		e.masks.mu.Lock()
		states := e.masks.byRun[id]
		delete(e.masks.byRun, id)
		e.masks.mu.Unlock()
		for _, m := range states {
			m.Close()
		}
	}
}

// masksOf is the mask state of the running workflow id in root (nil
// outside a run: a session then keeps its own).
func (e *Engine) masksOf(id, root string) *tools.MaskState {
	e.masks.mu.Lock()
	defer e.masks.mu.Unlock()
	states, ok := e.masks.byRun[id]
	if !ok || root == "" {
		return nil
	}
	root = filepath.Clean(root)
	if states[root] == nil {
		states[root] = tools.NewMaskState()
		if w := e.cfg.Repo.TakeRestoreWatch(root); w != nil {
			states[root].Adopt(w) // a recycled worktree: its restore's walk
		}
	}
	return states[root]
}
