package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/autarch-dev/autarch/fleet"
)

func fleetVerb() verb {
	return verb{
		name:    "fleet",
		usage:   "autarch fleet status|stop ID|resume ID|follow ID|limits [--rpm N] [--tpm N]|budget [SUBMITTER [--usd X] [--tokens N] [--reset]] (--nats URL [--creds FILE] | --root REPO) [--json]",
		summary: "the fleet's workers and runs; stop, resume or follow a fleet run by id; shared rate limits and budgets per submitter",
		run:     runFleet,
	}
}

func runFleet(ctx context.Context, io stdio, args []string) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError(io, fleetVerb())
	}
	sub := args[0]
	fs := newFlagSet("fleet "+sub, io)
	ff := addFleetFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON (status)")
	yes := fs.Bool("yes", false, "follow without answering questions (follow)")
	sf := addSharedLimitFlags(fs)
	fs.StringVar(&ff.user, "submitter", "", "who answers the run's questions (follow): its submitter, as autarch submit named it (default: the NATS user, else $USER)")
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	if err := ff.check(); err != nil {
		return fail(io, "fleet", 2, err)
	}
	id := ""
	switch sub {
	case "status", "limits":
	case "budget":
		if id = fs.Arg(0); id != "" { // its flags may follow the name
			if code, ok := parseFlags(fs, fs.Args()[1:]); !ok {
				return code
			}
			if fs.NArg() > 0 {
				fmt.Fprintln(io.err, "usage: autarch fleet budget [SUBMITTER [--usd X] [--tokens N] [--reset]] (--nats URL | --root REPO)")
				return 2
			}
		}
	case "stop", "resume", "follow":
		if fs.NArg() != 1 {
			fmt.Fprintf(io.err, "usage: autarch fleet %s ID (--nats URL | --root REPO): the run's id, as autarch submit printed it\n", sub)
			return 2
		}
		id = fs.Arg(0)
		if err := fleet.CheckID(id); err != nil {
			fmt.Fprintf(io.err, "autarch fleet %s: %v\n", sub, err)
			return 2
		}
	default:
		fmt.Fprintf(io.err, "autarch fleet: unknown command %q: use status, stop, resume, follow, limits or budget\n", sub)
		return 2
	}
	f, closeFleet, err := ff.open(ctx, nil)
	if err != nil {
		return fail(io, "fleet", 1, err)
	}
	defer closeFleet()
	switch sub {
	case "stop":
		r, err := f.Stop(ctx, id)
		if err != nil {
			return fail(io, "fleet stop", 1, err)
		}
		if r.State == fleet.Stopped {
			fmt.Fprintf(io.err, "autarch: run %s stopped before a worker took it; continue with: autarch fleet resume %s\n", id, id)
		} else {
			fmt.Fprintf(io.err, "autarch: worker %s stops run %s at its next lease renewal; continue later with: autarch fleet resume %s\n", r.Worker, id, id)
		}
		return 0
	case "resume":
		if _, err := f.Resume(ctx, id); err != nil {
			return fail(io, "fleet resume", 1, err)
		}
		fmt.Fprintf(io.err, "autarch: run %s is queued again; a worker continues it from its last pushed checkpoint\n", id)
		return 0
	case "follow":
		return followRun(ctx, io, f, id, !*yes)
	case "limits":
		return fleetLimits(ctx, io, f, fs, sf)
	case "budget":
		return fleetBudget(ctx, io, f, fs, sf, id, *asJSON)
	}
	return fleetStatus(ctx, io, f, *asJSON)
}

// fleetStatus lists the workers and the runs.
func fleetStatus(ctx context.Context, io stdio, f *fleet.Fleet, asJSON bool) int {
	workers, err := f.Workers(ctx)
	if err == nil {
		var runs []fleet.Run
		if runs, err = f.Runs(ctx); err == nil {
			if asJSON {
				return printJSON(io, struct {
					Workers []fleet.Worker `json:"workers"`
					Runs    []fleet.Run    `json:"runs"`
				}{workers, runs})
			}
			printFleet(io, workers, runs)
			return 0
		}
	}
	return fail(io, "fleet status", 1, err)
}

func printFleet(io stdio, workers []fleet.Worker, runs []fleet.Run) {
	tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	if len(workers) == 0 {
		fmt.Fprintln(tw, "no workers (start one with: autarch worker --nats URL)")
	} else {
		fmt.Fprintln(tw, "WORKER\tLABELS\tRUNS\tHEARTBEAT")
		for _, w := range workers {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s ago\n", w.Name, orDash(strings.Join(w.Labels, ",")), orDash(strings.Join(w.Runs, ",")), time.Since(w.Heartbeat).Round(time.Second))
		}
	}
	fmt.Fprintln(tw)
	if len(runs) == 0 {
		fmt.Fprintln(tw, "no runs (queue one with: autarch submit --nats URL --repo GIT_URL TASK)")
	} else {
		fmt.Fprintln(tw, "RUN\tKIND\tSTATE\tWORKER\tLEASE\tBRANCH\tCOMMITS\tATTEMPTS\tTASK")
		for _, r := range runs {
			lease := "-"
			if r.State == fleet.Running {
				lease = time.Until(r.Lease).Round(time.Second).String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", r.ID, r.Spec.Kind, r.State, orDash(r.Worker), lease, orDash(r.Branch), len(r.Commits), r.Attempts, firstLine(r.Spec.Task))
		}
	}
	tw.Flush()
	printWaiting(io, runs)
}
