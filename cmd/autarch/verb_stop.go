package main

import (
	"context"
	"fmt"
	"strings"
)

func stopVerb() verb {
	return verb{
		name:    "stop",
		usage:   "autarch stop [--root DIR] ID|NAME [REASON]",
		summary: "stop a workflow (a running pulse keeps its work as a recovery checkpoint)",
		run:     runStop,
	}
}

func runStop(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("stop", io)
	f := &engineFlags{}
	fs.StringVar(&f.root, "root", ".", "the project (a git repository)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() < 1 {
		fmt.Fprintln(io.err, "usage: "+stopVerb().usage)
		return 2
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		fmt.Fprintf(io.err, "autarch stop: %v\n", err)
		return 1
	}
	defer w.close()
	if err := w.engine.Stop(ctx, fs.Arg(0), strings.Join(fs.Args()[1:], " ")); err != nil {
		fmt.Fprintf(io.err, "autarch stop: %v\n", err)
		return 1
	}
	fmt.Fprintf(io.out, "stopped %s\n", fs.Arg(0))
	return 0
}
