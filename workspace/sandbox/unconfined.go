package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
)

// Unconfined runs commands without confinement: bash -c in Dir, in a
// process group of its own that is killed on timeout, with the scrubbed
// environment (ScrubEnv) plus Spec.Env. Only Dir, Command, Env, Timeout
// and MaxOutput apply: the command can read and write whatever the user
// can, reach the network, and a child that left the process group
// (setsid) survives the timeout. Callers use it only when the user opted
// in to unsandboxed commands.
type Unconfined struct{}

// Name says the commands are not confined.
func (Unconfined) Name() string {
	return "unconfined (no sandbox: commands run with the user's full access)"
}

// Confined is false.
func (Unconfined) Confined() bool { return false }

// Command returns bash -c spec.Command in spec.Dir.
func (Unconfined) Command(ctx context.Context, spec Spec) (*exec.Cmd, error) {
	dir, err := spec.validate()
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("sandbox: directory: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: %s is not a directory", dir)
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", spec.Command)
	cmd.Dir = dir
	groupCommand(cmd, mergeEnv(ScrubEnv(os.Environ()), spec.Env))
	return cmd, nil
}

// Run runs spec to completion.
func (u Unconfined) Run(ctx context.Context, spec Spec) (Result, error) {
	return run(ctx, u, spec)
}
