package main

import (
	"context"
	"fmt"
	"strings"
)

func stopVerb() verb {
	return verb{
		name:    "stop",
		usage:   "autarch stop [--root DIR] ID|NAME [REASON] | autarch stop --nats URL [--creds FILE] FLEET_RUN_ID",
		summary: "stop a workflow or a job (a running pulse keeps its work as a recovery checkpoint; autarch resume continues)",
		run:     orFleet("stop", runStop),
	}
}

func runStop(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("stop", io)
	f := addRootFlag(fs)
	if code, ok := parseOperands(io, fs, stopVerb(), args, 1, -1); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		return fail(io, "stop", 1, err)
	}
	defer w.close()
	reason := strings.Join(fs.Args()[1:], " ")
	if jobs := jobNamed(ctx, io, w, fs.Arg(0)); jobs != nil {
		if err := jobs.Stop(ctx, fs.Arg(0), reason); err != nil {
			return fail(io, "stop", 1, err)
		}
		fmt.Fprintf(io.out, "stopped job %s (autarch resume %s continues it)\n", fs.Arg(0), fs.Arg(0))
		return 0
	}
	if isFleetRun(ctx, io, w, fs.Arg(0)) {
		return runFleet(ctx, io, []string{"stop", "--root", f.root, fs.Arg(0)})
	}
	if err := w.engine.Stop(ctx, fs.Arg(0), reason); err != nil {
		return fail(io, "stop", 1, err)
	}
	fmt.Fprintf(io.out, "stopped %s\n", fs.Arg(0))
	return 0
}
