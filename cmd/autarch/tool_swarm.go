package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/autarch-dev/autarch/swarm"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/git"
)

// swarmToolFlags are `autarch tool`'s flags for running swarm tools.
type swarmToolFlags struct {
	as, name, url, creds string
}

func addSwarmToolFlags(fs *flag.FlagSet) *swarmToolFlags {
	f := &swarmToolFlags{}
	fs.StringVar(&f.as, "as", "", "run the swarm tools (fs_list, ctx_put, coord_next, …) as this agent against the project's swarm")
	fs.StringVar(&f.name, "swarm", envOr("AUTARCH_SWARM", "default"), "the swarm the tools of --as use: its id (env AUTARCH_SWARM)")
	fs.StringVar(&f.url, "nats", os.Getenv(swarm.EnvURL), "an external NATS for the swarm (env "+swarm.EnvURL+"; default: the project's embedded one)")
	fs.StringVar(&f.creds, "nats-creds", os.Getenv(swarm.EnvCreds), "the external NATS's .creds file (env "+swarm.EnvCreds+")")
	return f
}

// registry is the swarm tools bound to the agent f.as on the project's
// swarm f.name, rate-limited as cfg (or AUTARCH_SWARM_RATE) says; closeFn ends the connection (and the embedded server
// when this process hosts it).
func (f *swarmToolFlags) registry(ctx context.Context, root string, cfg tools.SwarmConfig, log *slog.Logger) (reg *tools.Registry, closeFn func(), err error) {
	if err := swarm.ValidAgent(f.as); err != nil {
		return nil, nil, fmt.Errorf("--as: %w", err)
	}
	opts, err := swarm.OptionsFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	copts := swarm.ConnOptions{URL: f.url, CredsFile: f.creds, Logger: log}
	if f.url == "" {
		repo, err := git.Open(ctx, root, git.Config{})
		if err != nil {
			return nil, nil, fmt.Errorf("--as needs the project's git repository (the swarm's state lives in it) or --nats URL: %w", err)
		}
		copts.StateDir = repo.StateDir()
	}
	c, err := swarm.Connect(ctx, copts)
	if err != nil {
		return nil, nil, err
	}
	s, err := swarm.Open(ctx, c, f.name, opts)
	if err == nil {
		reg, err = swarm.Registry(s, f.as)
	}
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return reg, func() { c.Close() }, nil
}

// hookContext gives the hooks of the calls made --as an agent its name
// and the swarm's (AUTARCH_AGENT, AUTARCH_SWARM); ctx as it is otherwise.
func (f *swarmToolFlags) hookContext(ctx context.Context) context.Context {
	if f.as == "" {
		return ctx
	}
	hc := tools.HookContextFrom(ctx)
	hc.Agent, hc.Swarm = f.as, f.name
	return tools.WithHookContext(ctx, hc)
}
