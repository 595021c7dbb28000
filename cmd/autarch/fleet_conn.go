package main

import (
	"context"
	"errors"
	"flag"
	"log/slog"
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
