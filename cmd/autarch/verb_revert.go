package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	kernel "github.com/autarch-dev/autarch/agent/run"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/swarm/orchestrate"
)

func revertVerb() verb {
	return verb{
		name:    "revert",
		usage:   "autarch revert [--root DIR] [--yes] [--applied] [--json] WORKFLOW PULSE | --job ID COMMIT | --swarm ID ROUND",
		summary: "undo a pulse and the later pulses that depend on it as revert commits on the workflow's branch (they become pending again: autarch redo runs them), a job's commits from COMMIT on, or a swarm's rounds from ROUND on",
		run:     runRevert,
	}
}

func runRevert(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("revert", io)
	f := addRootFlag(fs)
	fs.BoolVar(&f.yes, "yes", false, "revert without asking")
	applied := fs.Bool("applied", false, "revert a workflow already applied to your branch (your branch keeps the changes until you apply the workflow again)")
	asJSON := fs.Bool("json", false, "print the plan and the result as JSON")
	jobID := fs.String("job", "", "revert this job's commits from COMMIT on, on the job's branch")
	swarmID := fs.String("swarm", "", "revert this swarm's round commits from ROUND on, on the swarm's branch")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	want := 2
	if *jobID != "" || *swarmID != "" {
		want = 1
	}
	if fs.NArg() != want || (*jobID != "" && *swarmID != "") {
		return usageError(io, revertVerb())
	}
	w, err := openWorkflows(ctx, io, f, false)
	if err != nil {
		return fail(io, "revert", 1, err)
	}
	defer w.close()
	switch {
	case *jobID != "":
		return revertJob(ctx, io, w, *jobID, fs.Arg(0), *asJSON)
	case *swarmID != "":
		return revertSwarm(ctx, io, w, *swarmID, fs.Arg(0), *asJSON)
	}
	name, pulse := fs.Arg(0), fs.Arg(1)
	plan, err := w.engine.PlanRevert(ctx, name, pulse)
	if err != nil {
		return fail(io, "revert", 1, err)
	}
	if !*asJSON {
		printRevertPlan(io, plan)
	}
	if !f.yes && !confirm(io, "Revert these pulses? [y/N] ") {
		fmt.Fprintln(io.err, "autarch revert: nothing was reverted (answer y, or pass --yes)")
		return 1
	}
	res, err := w.engine.Revert(ctx, name, pulse, workflow.RevertOptions{Applied: *applied})
	if err != nil {
		fmt.Fprintf(io.err, "autarch revert: %v\n", err)
		if kernel.IsLocked(err) || errors.Is(err, workflow.ErrApplied) {
			return 3
		}
		return 1
	}
	if *asJSON {
		return printJSON(io, res)
	}
	for _, c := range res.Commits {
		fmt.Fprintf(io.out, "%.12s reverts %.12s\n", c.Commit, c.Reverts)
	}
	fmt.Fprintln(io.out, res.Message)
	return 0
}

// printRevertPlan shows what a revert undoes: the pulses, their commits
// and the files.
func printRevertPlan(io stdio, p workflow.RevertPlan) {
	io.err = editor.Shown(io.err) // pulse titles, summaries and files: the agent's words
	fmt.Fprintf(io.err, "Reverting %s of %s undoes, on %s:\n", p.Pulse, p.Workflow, p.Branch)
	for _, x := range p.Pulses {
		switch {
		case x.Commit != "":
			fmt.Fprintf(io.err, "  %s %s: %.12s %s (%s)\n", x.ID, x.Title, x.Commit, x.Summary, strings.Join(x.Files, ", "))
		default:
			fmt.Fprintf(io.err, "  %s %s: %s, nothing on the branch; it becomes pending again\n", x.ID, x.Title, x.Status)
		}
	}
	if len(p.Files) > 0 {
		fmt.Fprintf(io.err, "Files: %s\n", strings.Join(p.Files, ", "))
	}
	if p.AppliedTo != "" {
		fmt.Fprintf(io.err, "The workflow was already applied to %s, which keeps these changes: pass --applied to revert anyway, then apply the workflow again.\n", p.AppliedTo)
	}
}

// confirm asks a yes/no question on the terminal; anything but y or yes
// (or no answer) is no.
func confirm(io stdio, question string) bool {
	fmt.Fprint(io.err, question)
	line, _ := bufio.NewReader(io.in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

func revertJob(ctx context.Context, io stdio, w *workflows, id, commit string, asJSON bool) int {
	jobs, err := newJobs(io, w)
	if err != nil {
		return fail(io, "revert", 1, err)
	}
	res, err := jobs.Revert(ctx, id, commit)
	if err != nil {
		return fail(io, "revert", 1, err)
	}
	if asJSON {
		return printJSON(io, res)
	}
	for _, c := range res.Commits {
		fmt.Fprintf(io.out, "%.12s reverts %.12s\n", c.Commit, c.Reverts)
	}
	fmt.Fprintln(io.out, res.Message)
	return 0
}

func revertSwarm(ctx context.Context, io stdio, w *workflows, id, round string, asJSON bool) int {
	n, err := strconv.Atoi(round)
	if err != nil || n < 1 {
		fmt.Fprintf(io.err, "autarch revert: round %q is not a round number (1, 2, …)\n", round)
		return 2
	}
	made, err := orchestrate.RevertRounds(ctx, w.repo, w.repo.StateDir(), id, n)
	if err != nil {
		return fail(io, "revert", 1, err)
	}
	if asJSON {
		return printJSON(io, made)
	}
	for _, c := range made {
		fmt.Fprintf(io.out, "%.12s reverts %.12s\n", c.Commit, c.Reverts)
	}
	fmt.Fprintf(io.out, "reverted rounds %d and later of swarm %s (%d revert commits)\n", n, id, len(made))
	return 0
}

func printJSON(io stdio, v any) int {
	enc := json.NewEncoder(io.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(io.err, "autarch: %v\n", err)
		return 1
	}
	return 0
}

func redoVerb() verb {
	return verb{
		name:    "redo",
		usage:   `autarch redo [--root DIR] [--yes] [model flags] WORKFLOW PULSE ["guidance"]`,
		summary: "run a reverted pulse again (with your guidance for its agent) and continue the workflow, through the same gates",
		run:     runRedo,
	}
}

func runRedo(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("redo", io)
	f := addEngineFlags(fs)
	if code, ok := parseOperands(io, fs, redoVerb(), args, 2, 3); !ok {
		return code
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		return fail(io, "redo", 1, err)
	}
	defer w.close()
	wf, err := w.engine.MarkRedo(ctx, fs.Arg(0), fs.Arg(1), fs.Arg(2))
	if err != nil {
		return fail(io, "redo", 1, err)
	}
	wf, err = resumeAfterStop(ctx, io, w, wf.ID)
	return runResult(io, wf, err)
}
