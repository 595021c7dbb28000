package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools/verify"
)

func statusVerb() verb {
	return verb{
		name:    "status",
		usage:   "autarch status [--root DIR] [--json] [--jobs]",
		summary: "list the project's workflows (stage, status, pulses, cost), jobs (branch, commits, tests, lint, escalations, tokens, cost) and swarms (round, proposals, commits, tokens)",
		run:     runStatus,
	}
}

func runStatus(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("status", io)
	f := &engineFlags{}
	fs.StringVar(&f.root, "root", ".", "the project (a git repository)")
	asJSON := fs.Bool("json", false, "print JSON")
	onlyJobs := fs.Bool("jobs", false, "list the jobs only (with --json: the jobs' JSON)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		fmt.Fprintf(io.err, "autarch status: %v\n", err)
		return 1
	}
	defer w.close()
	if *onlyJobs {
		return printJobs(ctx, io, w, *asJSON)
	}
	rows, err := w.engine.Summaries(ctx)
	if err != nil {
		fmt.Fprintf(io.err, "autarch status: %v\n", err)
		return 1
	}
	if *asJSON {
		out, err := withPulses(ctx, w.engine.Store(), rows)
		if err != nil {
			fmt.Fprintf(io.err, "autarch status: %v\n", err)
			return 1
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(io.out, string(b))
		return 0
	}
	if len(rows) == 0 {
		fmt.Fprintln(io.out, "no workflows (start one with: autarch run TASK)")
	} else {
		tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTAGE\tSTATUS\tPULSES\tCOST\tUPDATED\tID")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\t%s\n", r.Name, r.Stage, r.Status, r.PulsesDone, r.Pulses, r.Cost, r.UpdatedAt, r.ID)
		}
		tw.Flush()
	}
	fmt.Fprintln(io.out)
	if code := printJobs(ctx, io, w, false); code != 0 {
		return code
	}
	return printSwarms(io, w.engine.Config().Repo.StateDir(), false, true)
}

// statusRow is a workflow of status --json with its pulses, each with its
// completion record: rejections, unresolved failures, the last gate run.
type statusRow struct {
	editor.WorkflowSummary
	PulseRecords []statusPulse `json:"pulseRecords"`
}

type statusPulse struct {
	ID               string                  `json:"id"`
	Title            string                  `json:"title"`
	Status           store.PulseStatus       `json:"status"`
	Rejections       int                     `json:"rejections"`
	Failures         []store.PulseFailure    `json:"failures,omitempty"`
	UnresolvedIssues []store.UnresolvedIssue `json:"unresolvedIssues,omitempty"`
	GateSummary      string                  `json:"gateSummary,omitempty"`
	Gates            *verify.GateRun         `json:"gates,omitempty"`
}

func withPulses(ctx context.Context, st *store.Store, rows []editor.WorkflowSummary) ([]statusRow, error) {
	out := make([]statusRow, 0, len(rows))
	for _, r := range rows {
		pulses, err := st.WorkflowPulses(ctx, r.ID)
		if err != nil {
			return nil, err
		}
		row := statusRow{WorkflowSummary: r, PulseRecords: []statusPulse{}}
		for _, p := range pulses {
			sp := statusPulse{ID: p.PlannedID, Title: p.Title, Status: p.Status, Rejections: p.RejectionCount, Failures: p.Failures,
				UnresolvedIssues: p.UnresolvedIssues, Gates: p.Gates}
			if p.Gates != nil {
				sp.GateSummary = workflow.GateSummary(*p.Gates)
			}
			row.PulseRecords = append(row.PulseRecords, sp)
		}
		out = append(out, row)
	}
	return out, nil
}
