package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/autarch-dev/autarch/app"
	"strings"

	"github.com/autarch-dev/autarch/agent/job"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

func jobVerb() verb {
	return verb{
		name:    "job",
		usage:   "autarch job [--mode mechanic|genius] [--base REF] [--root DIR] [--yes] [model flags] TASK | --resume ID [GUIDANCE] | --apply ID",
		summary: "run one coding-team agent on its own ai/… branch until it commits, asks you, or spends its budget",
		run:     runJob,
	}
}

func runJob(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("job", io)
	f := addEngineFlags(fs)
	// --mode is the job's mode here; --confirm is the confirmation mode.
	mode := fs.Lookup("mode")
	mode.Usage, mode.DefValue, f.mode = "job mode: mechanic (at most 5 files and 200 changed lines per patch, a smaller budget) or genius (no limits)", "mechanic", "mechanic"
	confirm := fs.String("confirm", string(tools.ModeConfirmSensitive), "confirmation mode for sensitive tool calls: yolo, confirm-sensitive or confirm-all")
	base := fs.String("base", "", "ref to start from (default: the repository's default branch)")
	resume := fs.String("resume", "", "resume the job with this id (or name) from its last message; words after it are guidance its agent reads first")
	apply := fs.String("apply", "", "fast-forward your current branch to the job's branch (id or name)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))
	// With --resume, the words are the human's guidance, not a task.
	guidance := ""
	if *resume != "" {
		guidance, task = task, ""
	}
	if n := countSet(task != "", *resume != "", *apply != ""); n != 1 {
		return usageError(io, jobVerb())
	}
	jobMode, err := job.ParseMode(f.mode)
	if err != nil {
		return fail(io, "job", 2, err)
	}
	f.mode = *confirm
	w, err := openWorkflows(ctx, io, f, *apply == "")
	if err != nil {
		return fail(io, "job", 1, err)
	}
	defer w.close()
	jobs, err := newJobs(io, w)
	if err != nil {
		return fail(io, "job", 1, err)
	}
	switch {
	case *apply != "":
		return applyJob(ctx, io, jobs, *apply)
	case *resume != "":
		j, err := jobs.ResumeWithGuidance(ctx, *resume, guidance)
		return jobResult(io, j, err)
	}
	j, err := jobs.Start(ctx, job.Task{Text: task, Mode: string(jobMode), Base: *base})
	if err != nil {
		return fail(io, "job", 2, err)
	}
	j, err = jobs.Run(ctx, j.ID)
	return jobResult(io, j, err)
}

// newJobs is the job runner over a verb's engine, its events on stderr.
func newJobs(io stdio, w *workflows) (*job.Runner, error) {
	cfg := app.JobConfig(w.engine)
	cfg.Events = func(ev editor.JobEvent) { printJobEvent(io, ev) }
	return job.New(cfg)
}

// jobNamed is the project's jobs when id names a job and no workflow (stop
// and resume take either); nil otherwise.
func jobNamed(ctx context.Context, io stdio, w *workflows, id string) *job.Runner {
	if _, err := w.engine.Find(ctx, id); err == nil {
		return nil
	}
	jobs, err := newJobs(io, w)
	if err != nil {
		return nil
	}
	if _, err := jobs.Find(ctx, id); err != nil {
		return nil
	}
	return jobs
}

func countSet(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// applyJob fast-forwards the user's branch to the job's, as a workflow
// is applied.
func applyJob(ctx context.Context, io stdio, jobs *job.Runner, ref string) int {
	res, err := jobs.Apply(ctx, ref, workflow.ApplyMerge, func(string) (string, bool) { return "", false })
	if err != nil {
		return fail(io, "job", 1, err)
	}
	fmt.Fprintln(io.out, res.Message)
	if !res.Applied {
		return 1
	}
	return 0
}

// jobResult prints how a job's run ended and returns the exit code: 0
// when it committed, 3 when it waits for a human or stopped (resumable),
// 1 on failure.
func jobResult(io stdio, j store.Job, err error) int {
	fmt.Fprintf(io.out, "%s\t%s\t%s\t%s\n", j.ID, j.Name, j.Status, j.Branch)
	if j.ID == "" {
		return fail(io, "job", 1, err)
	}
	resume := "autarch job --resume " + j.ID
	switch {
	case j.Status == store.JobDone:
		fmt.Fprintf(io.err, "autarch: job %s %s; apply it with: autarch job --apply %s (or from the editor's side panel)\n", j.Name, j.StatusReason, j.ID)
		return 0
	case errors.Is(err, job.ErrWaiting) || j.Status == store.JobWaiting:
		fmt.Fprintf(io.err, "autarch: job %s asks for a human review; answer it with: %s (in a terminal, or from the editor's side panel)\n", j.Name, resume)
		return 3
	case j.Status == store.JobStopped:
		fmt.Fprintf(io.err, "autarch: job %s stopped: %s\nautarch: continue with: %s (add \"your guidance\" after it to steer the agent)\n", j.Name, j.StatusReason, resume)
		return 3
	}
	if err != nil {
		fmt.Fprintf(io.err, "autarch: %v\n", err)
	}
	return continueOnceFixed(io, "the job", string(j.Status), " from its last message", resume)
}

// printJobEvent shows a job event on the terminal (stderr).
func printJobEvent(io stdio, ev editor.JobEvent) {
	io.err = editor.Shown(io.err) // the agent's words, as printEvent
	if printActivity(io, ev.Kind, ev.Tool, ev.Reason, ev.Text, ev.Failed) {
		return
	}
	switch ev.Kind {
	case "status":
		if ev.Text != "" {
			fmt.Fprintf(io.err, "■ job %s: %s\n", strings.ToLower(ev.Status), ev.Text)
		}
	case "check":
		fmt.Fprintf(io.err, "    %s: %s (%s)\n", ev.Tool, ev.Status, ev.Text)
	case "branch", "commit", "plan", "analysis":
		fmt.Fprintf(io.err, "◆ %s: %s\n", ev.Kind, ev.Text)
	case "escalation":
		fmt.Fprintf(io.err, "? human review %s: %s\n", strings.ToLower(ev.Status), ev.Text)
	}
}

// printJobs lists the jobs for autarch status: a table, or JSON.
func printJobs(ctx context.Context, io stdio, w *workflows, asJSON bool) int {
	jobs, err := newJobs(io, w)
	if err != nil {
		return fail(io, "status", 1, err)
	}
	list, err := jobs.Summaries(ctx)
	if err != nil {
		return fail(io, "status", 1, err)
	}
	return printListing(io, list, asJSON, "no jobs (start one with: autarch job TASK)",
		"JOB\tMODE\tSTATUS\tBRANCH\tCOMMITS\tTESTS\tLINT\tESCALATIONS\tTOKENS\tCOST\tID", func(j editor.JobSummary) string {
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t$%.4f\t%s", j.Name, j.Mode, jobStatus(j), orDash(j.Branch), commitsCell(j.Commits),
				checkCell(j.Tests), checkCell(j.Lint), escalationsCell(j.Escalations), j.Tokens, j.TokenBudget, j.Cost, j.ID)
		})
}

func jobStatus(j editor.JobSummary) string {
	if j.StatusReason == "" || j.Status == string(store.JobRunning) {
		return j.Status
	}
	return j.Status + " (" + j.StatusReason + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func commitsCell(cs []editor.JobCommitView) string {
	if len(cs) == 0 {
		return "-"
	}
	last := cs[len(cs)-1]
	hash := last.Hash
	if len(hash) > 8 {
		hash = hash[:8]
	}
	return fmt.Sprintf("%d (%s %s)", len(cs), hash, firstLine(last.Message))
}

func checkCell(c *editor.JobCheckView) string {
	if c == nil {
		return "-"
	}
	return c.Status + ": " + c.Summary
}

func escalationsCell(es []editor.EscalationView) string {
	if len(es) == 0 {
		return "-"
	}
	open := 0
	for _, e := range es {
		if e.Status == store.EscalationPending {
			open++
		}
	}
	if open > 0 {
		return fmt.Sprintf("%d (%d waiting)", len(es), open)
	}
	return fmt.Sprint(len(es))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
