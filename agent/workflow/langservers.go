package workflow

import (
	"context"
	"sync"
	"time"

	"github.com/autarch-dev/autarch/tools"
)

// runServers are the language servers of the runs in this process, by
// workflow id: made when a run starts (each server starts on its first
// code intelligence call), shared by every stage and pulse of the run,
// shut down when the run ends.
type runServers struct {
	mu    sync.Mutex
	byRun map[string]*tools.LangServers
}

// startLangServers makes the language servers of the run of workflow id,
// under the repository's configuration; the function it returns shuts
// them down.
func (e *Engine) startLangServers(id string) func() {
	ls := tools.NewLangServers(e.cfg.Repository, e.cfg.Log)
	e.servers.mu.Lock()
	if e.servers.byRun == nil {
		e.servers.byRun = map[string]*tools.LangServers{}
	}
	e.servers.byRun[id] = ls
	e.servers.mu.Unlock()
	return func() {
		e.servers.mu.Lock()
		delete(e.servers.byRun, id)
		e.servers.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ls.Close(ctx)
	}
}

// langServersOf are the language servers of the running workflow id (nil
// outside a run: a session then starts its own).
func (e *Engine) langServersOf(id string) *tools.LangServers {
	e.servers.mu.Lock()
	defer e.servers.mu.Unlock()
	return e.servers.byRun[id]
}
