package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"

	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

func runVerb() verb {
	return verb{
		name:    "run",
		usage:   "autarch run [--root DIR] [--yes] [--dry-run] [--path quick|full] [--name BRANCH] [--base REF] [--parallel N] [--allow-commands|--no-commands] [model flags] TASK",
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
	parallel := fs.Int("parallel", 1, "how many independent pulses run at once, each in its own worktree, landing in plan order (1: one after another)")
	f.commands = addCommandsFlags(fs)
	fs.BoolVar(&f.dryRun, "dry-run", false, "run the agents with reads executed and writes and commands only recorded; print the plan; leave the repository as it is")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	task := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if task == "" {
		return usageError(io, runVerb())
	}
	if err := f.commands.check(); err != nil {
		return fail(io, "run", 2, err)
	}
	if *parallel < 1 {
		fmt.Fprintf(io.err, "autarch run: --parallel %d is not accepted: use 1 (one pulse at a time) or more\n", *parallel)
		return 2
	}
	if *path != "" {
		if _, err := workflow.ParsePath(*path); err != nil {
			return fail(io, "run", 2, err)
		}
	}
	w, err := openWorkflows(ctx, io, f, true)
	if err != nil {
		return fail(io, "run", 1, err)
	}
	defer w.close()
	if *base == "" {
		if _, err := w.repo.ResolveCommit(ctx, "HEAD"); err != nil {
			fmt.Fprintf(io.err, "autarch run: %v\n", noCommit(w.repo))
			return 1
		}
	}
	if err := reachable(ctx, w.model); err != nil {
		fmt.Fprintf(io.err, "autarch run: %v; no workflow was started (autarch doctor checks the model endpoint)\n", err)
		return 1
	}
	wf, err := w.engine.Start(ctx, workflow.Task{Text: task, Name: *name, Path: workflow.Path(*path), Base: *base, Parallel: *parallel})
	if err != nil {
		return fail(io, "run", 2, err)
	}
	wf, err = w.engine.Run(ctx, wf.ID)
	if forgetUnreached(ctx, io, w, wf, err) {
		return 1
	}
	if f.dryRun {
		return dryRunResult(io, wf, err, w.engine.Plan(wf.ID))
	}
	return runResult(io, wf, err)
}

// dryRunResult prints how a dry run ended and its plan (stdout): 0 when
// the workflow went through its pulses, 3 when it stopped early (a card
// was dismissed, it halted), 1 on failure. A dry run keeps no state, so
// there is nothing to resume.
func dryRunResult(io stdio, wf store.Workflow, err error, plan tools.Plan) int {
	fmt.Fprintf(io.out, "%s\t%s\t%s\tdry run %s\n", wf.ID, wf.Name, wf.Stage, strings.ToLower(string(wf.Status)))
	fmt.Fprint(io.out, plan.Summary())
	var h *workflow.Halt
	switch {
	case err == nil && wf.Status == store.WorkflowCompleted:
		return 0
	case errors.Is(err, editor.ErrNoTTY):
		fmt.Fprintln(io.err, "autarch: the dry run stopped at a question no one could answer: run it in a terminal, or pass --yes to approve its cards; nothing was changed")
		return 3
	case err == nil, errors.Is(err, workflow.ErrWaiting), errors.As(err, &h):
		why := wf.StatusReason
		if err != nil {
			why = err.Error()
		}
		fmt.Fprintf(io.err, "autarch: the dry run ended in %s before its pulses were done (%s): above is what it planned so far; nothing was changed. Run it again to go further.\n", wf.Stage, why)
		return 3
	}
	fmt.Fprintf(io.err, "autarch: the dry run failed: %v; nothing was changed\n", err)
	return 1
}

// modelCheckTimeout bounds the probe of the model endpoint before a run.
const modelCheckTimeout = 10 * time.Second

// reachable probes the model endpoint before a workflow is started: an
// endpoint that refuses connections, or a key that is missing or refused,
// fails every call, so no workflow is recorded for it. Anything less
// certain (a slow answer, an endpoint that lists no models) lets the run
// go on.
func reachable(ctx context.Context, m *openai.Model) error {
	if m == nil {
		return nil
	}
	if c := m.Check(ctx, modelCheckTimeout); c.Err != nil && openai.NeverReached(c.Err) {
		return c.Err
	}
	return nil
}

// forgetUnreached removes a workflow this run started whose first model
// call never reached a model (it holds nothing but its task), and says
// so; it reports whether it did.
func forgetUnreached(ctx context.Context, io stdio, w *workflows, wf store.Workflow, err error) bool {
	if wf.ID == "" || !openai.NeverReached(err) || wf.Stage != string(workflow.StageScoping) {
		return false
	}
	ctx = context.WithoutCancel(ctx)
	if u, uerr := w.store.WorkflowUsage(ctx, wf.ID); uerr != nil || u.Calls > 0 {
		return false
	}
	msgs, merr := w.store.Messages(ctx, wf.ID, wf.Stage, "")
	if merr != nil || slices.ContainsFunc(msgs, func(m store.Message) bool { return m.Role == agent.RoleAssistant }) {
		return false
	}
	if derr := w.store.DeleteWorkflow(ctx, wf.ID); derr != nil {
		return false
	}
	fmt.Fprintf(io.err, "autarch run: %v; no model answered, so workflow %s was not kept\n", err, wf.Name)
	return true
}
