package main

import (
	"context"
	"fmt"
	"time"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow/store"
)

func resumeVerb() verb {
	return verb{
		name:    "resume",
		usage:   "autarch resume [--root DIR] [--yes] [model flags] ID|NAME | autarch resume --nats URL [--creds FILE] FLEET_RUN_ID",
		summary: "continue a stopped, halted or waiting workflow (or job) where it was left",
		run:     orFleet("resume", runResume),
	}
}

func runResume(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("resume", io)
	f := addEngineFlags(fs)
	if code, ok := parseOperands(io, fs, resumeVerb(), args, 1, 1); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		return fail(io, "resume", 1, err)
	}
	defer w.close()
	if jobs := jobNamed(ctx, io, w, fs.Arg(0)); jobs != nil {
		j, err := jobs.Resume(ctx, fs.Arg(0))
		return jobResult(io, j, err)
	}
	if isFleetRun(ctx, io, w, fs.Arg(0)) {
		return runFleet(ctx, io, []string{"resume", "--root", f.root, fs.Arg(0)})
	}
	wf, err := resumeAfterStop(ctx, io, w, fs.Arg(0))
	return runResult(io, wf, err)
}

// stopGrace is how long resume waits for the process that runs a stopped
// workflow to notice the stop and let it go (it checks every half second).
const stopGrace = 15 * time.Second

// resumeAfterStop resumes a workflow; when another process still holds a
// workflow that was stopped (autarch stop a moment ago), it waits for that
// process to let go instead of refusing.
func resumeAfterStop(ctx context.Context, io stdio, w *workflows, id string) (store.Workflow, error) {
	deadline := time.Now().Add(stopGrace)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	said := false
	for {
		wf, err := w.engine.Resume(ctx, id)
		if !kernel.IsLocked(err) || wf.Status != store.WorkflowStopped || time.Now().After(deadline) {
			return wf, err
		}
		if !said {
			fmt.Fprintf(io.err, "autarch: waiting for the autarch process that ran %s to notice the stop…\n", wf.Name)
			said = true
		}
		select {
		case <-ctx.Done():
			return wf, ctx.Err()
		case <-tick.C:
		}
	}
}
