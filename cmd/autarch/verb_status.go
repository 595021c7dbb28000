package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/autarch-dev/autarch/agent/workflow/store"
)

func statusVerb() verb {
	return verb{
		name:    "status",
		usage:   "autarch status [--root DIR] [--json]",
		summary: "list the project's workflows: stage, status, pulses, cost",
		run:     runStatus,
	}
}

// workflowStatus is one row of autarch status.
type workflowStatus struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Branch       string  `json:"branch"`
	Stage        string  `json:"stage"`
	Status       string  `json:"status"`
	StatusReason string  `json:"statusReason,omitempty"`
	Path         string  `json:"path,omitempty"`
	PulsesDone   int     `json:"pulsesDone"`
	Pulses       int     `json:"pulses"`
	Cost         float64 `json:"cost"`
	Tokens       int64   `json:"tokens"`
	Task         string  `json:"task"`
	Updated      string  `json:"updated"`
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
	rows, err := statusRows(ctx, w.store)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\t%s\n", r.Name, r.Stage, r.Status, r.PulsesDone, r.Pulses, r.Cost, r.Updated, r.ID)
	}
	tw.Flush()
	return 0
}

func statusRows(ctx context.Context, st *store.Store) ([]workflowStatus, error) {
	wfs, err := st.Workflows(ctx)
	if err != nil {
		return nil, err
	}
	rows := []workflowStatus{}
	for _, wf := range wfs {
		pulses, err := st.WorkflowPulses(ctx, wf.ID)
		if err != nil {
			return nil, err
		}
		use, err := st.WorkflowUsage(ctx, wf.ID)
		if err != nil {
			return nil, err
		}
		r := workflowStatus{ID: wf.ID, Name: wf.Name, Branch: wf.WorkflowBranch, Stage: wf.Stage, Status: string(wf.Status), StatusReason: wf.StatusReason,
			Path: wf.Path, Cost: use.Cost, Tokens: use.PromptTokens + use.CompletionTokens, Task: wf.Task, Updated: wf.UpdatedAt.Local().Format("2006-01-02 15:04")}
		for _, p := range pulses {
			if p.PlanID != "" || wf.Path == "quick" {
				r.Pulses++
				if p.Status == store.PulseSucceeded {
					r.PulsesDone++
				}
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}
