package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
)

func statusVerb() verb {
	return verb{
		name:    "status",
		usage:   "autarch status [--root DIR] [--json]",
		summary: "list the project's workflows: stage, status, pulses, cost",
		run:     runStatus,
	}
}

func runStatus(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("status", io)
	f := &engineFlags{}
	fs.StringVar(&f.root, "root", ".", "the project (a git repository)")
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		fmt.Fprintf(io.err, "autarch status: %v\n", err)
		return 1
	}
	defer w.close()
	rows, err := w.engine.Summaries(ctx)
	if err != nil {
		fmt.Fprintf(io.err, "autarch status: %v\n", err)
		return 1
	}
	if *asJSON {
		b, _ := json.MarshalIndent(rows, "", "  ")
		fmt.Fprintln(io.out, string(b))
		return 0
	}
	if len(rows) == 0 {
		fmt.Fprintln(io.out, "no workflows (start one with: autarch run TASK)")
		return 0
	}
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTAGE\tSTATUS\tPULSES\tCOST\tUPDATED\tID")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\t%s\n", r.Name, r.Stage, r.Status, r.PulsesDone, r.Pulses, r.Cost, r.UpdatedAt, r.ID)
	}
	tw.Flush()
	return 0
}
