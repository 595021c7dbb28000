package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/fleet"
	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/workspace/git"
)

// fleetFlags say which NATS the fleet verbs use: an external one (--nats,
// --creds) or a project's embedded server (--root).
type fleetFlags struct {
	nats, creds, root string
	lease             time.Duration
	// user is who answers runs from this connection (submit's and
	// follow's --submitter; else the NATS user, else $USER).
	user string
}

func addFleetFlags(fs *flag.FlagSet) *fleetFlags {
	ff := &fleetFlags{}
	fs.StringVar(&ff.nats, "nats", "", "the fleet's NATS server URL (nats://host:4222; JetStream enabled)")
	fs.StringVar(&ff.creds, "creds", "", "the NATS credentials file (.creds) for --nats")
	fs.StringVar(&ff.root, "root", "", "use this repository's embedded NATS instead of --nats (one machine, nothing to set up)")
	fs.DurationVar(&ff.lease, "lease", fleet.DefaultLease, "how long a worker holds a run without renewing its lease")
	return ff
}

// check refuses both or neither of --nats and --root.
func (ff *fleetFlags) check() error {
	if (ff.nats == "") == (ff.root == "") {
		return errors.New("give the fleet's NATS with --nats URL (or --root REPO for a repository's embedded NATS on this machine), one of them")
	}
	return nil
}

// open connects to the fleet; the returned func closes the connection.
func (ff *fleetFlags) open(ctx context.Context, log *slog.Logger) (*fleet.Fleet, func(), error) {
	opts := swarm.ConnOptions{URL: ff.nats, CredsFile: ff.creds, Logger: log}
	if ff.root != "" {
		repo, err := git.Open(ctx, ff.root, git.Config{})
		if errors.Is(err, git.ErrNotRepository) {
			return nil, nil, notRepository(ff.root)
		}
		if err != nil {
			return nil, nil, err
		}
		opts.StateDir = repo.StateDir()
	}
	return fleet.Connect(ctx, opts, fleet.Options{Lease: ff.lease, User: submitterOf(ff.user, ff.nats)})
}

// fleetRunArgs reports whether a stop or resume names a fleet run: its
// words give --nats (or --creds), which only a fleet run has. Then the
// verb is autarch fleet's (autarch stop --nats URL ID is autarch fleet
// stop --nats URL ID).
func fleetRunArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && (name == "nats" || name == "creds") {
			return true
		}
	}
	return false
}

// orFleet is a verb's run that hands args naming a fleet run
// (fleetRunArgs) to autarch fleet NAME.
func orFleet(name string, run func(ctx context.Context, io stdio, args []string) int) func(ctx context.Context, io stdio, args []string) int {
	return func(ctx context.Context, io stdio, args []string) int {
		if fleetRunArgs(args) {
			return runFleet(ctx, io, append([]string{name}, args...))
		}
		return run(ctx, io, args)
	}
}

// isFleetRun reports whether id names no workflow or job of the project
// but has the shape of a fleet run's id (as autarch submit printed it):
// autarch stop and resume then act on that run in the fleet of the
// project's embedded NATS (--root).
func isFleetRun(ctx context.Context, io stdio, w *workflows, id string) bool {
	if fleet.CheckID(id) != nil {
		return false
	}
	if _, err := w.engine.Find(ctx, id); err == nil {
		return false
	}
	if jobs, err := newJobs(io, w); err == nil {
		if _, err := jobs.Find(ctx, id); err == nil {
			return false
		}
	}
	return true
}
