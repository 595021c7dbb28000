package main

import (
	"errors"
	"flag"

	"github.com/autarch-dev/autarch/tools"
)

// commandsFlags are --allow-commands and --no-commands (spec 001-28): for
// one run, they switch the agents' command tools (shell, run_tests,
// run_lint, record_baseline, read_lints) on or off whatever the
// configuration's commands.enabled says.
type commandsFlags struct {
	allow, no bool
}

func addCommandsFlags(fs *flag.FlagSet) *commandsFlags {
	c := &commandsFlags{}
	fs.BoolVar(&c.allow, "allow-commands", false, "give agents their command tools (shell, run_tests, run_lint…) for this run, even where .autarch/config.yaml sets commands.enabled: false")
	fs.BoolVar(&c.no, "no-commands", false, "take the agents' command tools (shell, run_tests, run_lint…) away for this run")
	return c
}

// check refuses both flags at once.
func (c *commandsFlags) check() error {
	if c != nil && c.allow && c.no {
		return errors.New("--allow-commands and --no-commands contradict each other: pass one of them")
	}
	return nil
}

// apply sets commands.enabled of the run's settings when a flag was given.
func (c *commandsFlags) apply(s *tools.Config) {
	if c == nil || !c.allow && !c.no {
		return
	}
	on := c.allow
	s.Commands.Enabled = &on
}
