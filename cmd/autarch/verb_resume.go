package main

import (
	"context"
	"fmt"
)

func resumeVerb() verb {
	return verb{
		name:    "resume",
		usage:   "autarch resume [--root DIR] [--yes] [model flags] ID|NAME",
		summary: "continue a stopped, halted or waiting workflow (or job) where it was left",
		run:     runResume,
	}
}

func runResume(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("resume", io)
	f := addEngineFlags(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "usage: "+resumeVerb().usage)
		return 2
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		fmt.Fprintf(io.err, "autarch resume: %v\n", err)
		return 1
	}
	defer w.close()
	if _, err := w.engine.Find(ctx, fs.Arg(0)); err != nil {
		if jobs, jerr := newJobs(io, w); jerr == nil {
			if _, ferr := jobs.Find(ctx, fs.Arg(0)); ferr == nil {
				j, err := jobs.Resume(ctx, fs.Arg(0))
				return jobResult(io, j, err)
			}
		}
	}
	wf, err := w.engine.Resume(ctx, fs.Arg(0))
	return runResult(io, wf, err)
}
