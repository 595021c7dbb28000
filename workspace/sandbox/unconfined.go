package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
)

// Unconfined runs commands without confinement: bash -c in Dir, in a
// process group of its own that is killed on timeout, with the scrubbed
// environment (ScrubEnv) plus Spec.Env. Only Dir, Command, Env, Timeout,
// MaxOutput and Limits apply: the command can read and write whatever the user
// can and reach the network. Limits apply as in Bwrap: where a cgroup
// holds the command, a child that left the process group (setsid) is
// killed with it; elsewhere it survives the timeout. Callers use it only
// when the user opted in to unsandboxed commands.
type Unconfined struct {
	// Limits are the user's limits of every command; zero fields are
	// DefaultLimits.
	Limits Limits
}

// Name says the commands are not confined.
func (Unconfined) Name() string {
	return "unconfined (no sandbox: commands run with the user's full access)"
}

// Confined is false.
func (Unconfined) Confined() bool { return false }

// Command returns bash -c spec.Command in spec.Dir.
func (u Unconfined) Command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	dir, err := spec.validate()
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("sandbox: directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: %s is not a directory", dir)
	}
	l, _, _ := u.limits()
	argv := wrap([]string{"bash", "-c", spec.Command}, l.lower(spec.Limits), spec.gate.cgroupOf())
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	groupCommand(cmd, mergeEnv(ScrubEnv(os.Environ()), spec.Env))
	return cmd, nil
}

// Run runs spec to completion.
func (u Unconfined) Run(ctx context.Context, spec Spec) (Result, error) {
	return run(ctx, u, spec)
}

// limits are u's limits; the cgroups are looked up for every command, as
// an Unconfined value holds no state.
func (u Unconfined) limits() (Limits, cgroups, *slog.Logger) {
	return u.Limits.withDefaults(DefaultLimits()), detectCgroups(), slog.Default()
}
