package workflow

import (
	"context"
	"sync"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/tools"
)

// prepareWorktrees checks out, in the background, the worktrees this
// workflow will need — its own, and one per lane when its pulses run in
// parallel — while its scoping, research and plan run (issue 35: a 45k-file
// tree takes tens of seconds to check out, taking a prepared one about a
// second; see git.Repo.PrepareWorktrees). The preparation ends with the
// run; the returned stop cancels it and waits for it.
func (e *Engine) prepareWorktrees(ctx context.Context, wf store.Workflow) (stop func()) {
	need := 0
	if wf.WorktreePath == "" {
		need++
	}
	if n, err := e.cfg.Store.Parallel(ctx, wf.ID); err == nil && n > 1 {
		need += n
	}
	if e.cfg.DryRun || e.cfg.Repo == nil || need == 0 || Stage(wf.Stage).Terminal() {
		return func() {}
	}
	// A restored tree's walk is handed to the first mask decision in it
	// (masksOf).
	e.cfg.Repo.ObserveRestores(tools.NewRestoreWatch)
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := e.cfg.Repo.PrepareWorktrees(ctx, wf.Name, wf.BaseCommit, need); err != nil && ctx.Err() == nil {
			e.cfg.Log.Warn("preparing worktrees ahead failed; they are made when needed", "workflow", wf.Name, "err", err)
		}
	}()
	go func() {
		defer wg.Done()
		e.prepareObjects(ctx)
	}()
	return func() {
		cancel()
		wg.Wait()
		if err := e.cfg.Repo.DropPreparedWorktrees(context.WithoutCancel(ctx), wf.Name); err != nil {
			e.cfg.Log.Warn("removing unused prepared worktrees", "workflow", wf.Name, "err", err)
		}
	}
}

// prepareObjects brings the repository's filtered object store (the git
// objects sandboxed commands see) up to date while the workflow's early
// stages run: the worktree's sessions then find it built and only add
// their worktree's few new objects. A failure here is the first
// command's to report.
func (e *Engine) prepareObjects(ctx context.Context) {
	sess, err := tools.NewSession(tools.SessionConfig{Root: e.cfg.Repo.Top(), Role: Stage(StagePreflight).Role(), Mode: e.cfg.Mode,
		Workflow: true, StateDir: e.cfg.Repo.StateDir(), GitCommonDir: e.cfg.Repo.CommonDir(), Egress: e.cfg.Egress})
	if err != nil {
		return
	}
	defer sess.Close()
	sess.PrepareObjects(ctx)
}
