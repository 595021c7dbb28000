package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/autarch-dev/autarch/agent/workflow"
)

func runVerb() verb {
	return verb{
		name:    "run",
		usage:   "autarch run [--root DIR] [--yes] [--path quick|full] [--name BRANCH] [--base REF] [model flags] TASK",
		summary: "run a whole workflow headless: scope, research, plan, preflight, pulses, review",
		run:     runRun,
	}
}

func runRun(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("run", io)
	f := addEngineFlags(fs)
	path := fs.String("path", "", "force the quick or full path (default: the scope card's recommendation)")
	name := fs.String("name", "", "workflow name; its branch is autarch/NAME (default: made from the task)")
	base := fs.String("base", "", "branch to start from (default: the current branch)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if task == "" {
		fmt.Fprintln(io.err, "usage: "+runVerb().usage)
		return 2
	}
	if *path != "" {
		if _, err := workflow.ParsePath(*path); err != nil {
			fmt.Fprintf(io.err, "autarch run: %v\n", err)
			return 2
		}
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		fmt.Fprintf(io.err, "autarch run: %v\n", err)
		return 1
	}
	defer w.close()
	wf, err := w.engine.Start(ctx, workflow.Task{Text: task, Name: *name, Path: workflow.Path(*path), Base: *base})
	if err != nil {
		fmt.Fprintf(io.err, "autarch run: %v\n", err)
		return 2
	}
	wf, err = w.engine.Run(ctx, wf.ID)
	return runResult(io, wf, err)
}
