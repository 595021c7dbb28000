// Package sandbox runs the commands an agent causes, confined.
//
// A Sandbox turns a Spec (a bash -c string, the directory it may write and
// the paths it may or may not see) into a process. On Linux the mechanism is
// bubblewrap (see Bwrap): the system directories and toolchains are visible
// read-only, the working directory is the only writable tree besides the
// caller's extras, .git/.autarch style paths are bound read-only over it,
// secret files are masked by an empty read-only file, /tmp and the home
// directory are private and empty, the command lives in its own PID, IPC
// and UTS namespace (and network namespace when the stage has no network),
// and its environment is scrubbed of credentials (ScrubEnv). Each command
// runs within Limits (processes, memory, file size, CPU time): in a cgroup
// of its own where one can be created, with hard rlimits always. Many
// masked files are bound by the mask helper (masks.go, maskinit) inside
// the sandbox rather than by bwrap, whose cost grows with the square of
// their number; what the command sees is the same.
//
// Unconfined runs the same Spec without confinement; callers use it only
// when the user opted in to unsandboxed commands. Another operating
// system's mechanism (macOS Seatbelt) joins by implementing Sandbox.
package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultTimeout bounds a command whose Spec has no Timeout.
const DefaultTimeout = 5 * time.Minute

// DefaultMaxOutput bounds each captured stream of Run whose Spec has no
// MaxOutput: the first quarter and the last three quarters are kept.
const DefaultMaxOutput = 4 << 20

// waitDelay is how long Wait waits for the output pipes after the process
// group was killed (a grandchild may hold them open).
const waitDelay = 2 * time.Second

// Sandbox runs commands confined by one mechanism.
type Sandbox interface {
	// Name names the mechanism ("bubblewrap 0.8.0"); an implementation
	// that does not confine says "unconfined" in it.
	Name() string
	// Confined reports whether the mechanism confines commands.
	Confined() bool
	// Command returns the process for spec, not started: it runs in its own
	// process group, with no stdin, and cancelling ctx kills the group (and
	// for a confined mechanism everything the command started). The
	// caller sets Stdout/Stderr and runs it; Spec.Timeout is not applied,
	// and of the limits only the rlimits (Run adds the cgroup).
	Command(ctx context.Context, spec Spec) (*exec.Cmd, error)
	// Run runs spec to completion within Spec.Timeout and captures its
	// output. A command that fails or times out is a Result, not an error;
	// the error is for a spec that cannot run at all.
	Run(ctx context.Context, spec Spec) (Result, error)
}

// Spec is one command and what it may touch.
type Spec struct {
	// Dir is the working directory and the writable root (a worktree or a
	// workspace). It must be absolute and an existing directory; it may
	// not be "/" nor contain the home directory.
	Dir string
	// Command is run by bash -c.
	Command string
	// Writable are extra directories the command may write. Missing ones
	// are skipped. Nothing of a repository belongs here (RepoPaths): its
	// git directory is read-only to every command.
	Writable []string
	// ReadOnly are paths bound read-only over the writable trees (.git of
	// a normal repository, .autarch, protected files); relative paths are
	// relative to Dir. Missing ones are skipped. Deeper paths win over
	// shallower ones whatever their kind, so a Writable directory inside a
	// ReadOnly one stays writable.
	ReadOnly []string
	// Masked are files (or directories) replaced by /dev/null (or an empty
	// read-only directory): they read as empty by any means, what is
	// written to them is discarded, and the file underneath is untouched.
	// A directory bound deeper inside a masked one (a worktree under
	// Autarch's state directory) stays visible.
	// Relative paths are relative to Dir. Missing ones are skipped; a
	// symlink is masked at its target only when that is inside a visible
	// tree.
	Masked []string
	// Binds show another directory (or file) read-only in place of an
	// existing one, such as a filtered git object store over the
	// repository's objects. The destination must exist inside a visible
	// tree (a missing one is skipped); a bind that cannot be made is an
	// error, never silently dropped. Deeper binds win as for ReadOnly.
	Binds []Bind
	// Network keeps the host's network; false gives the command a network
	// namespace of its own with only a loopback device.
	Network bool
	// Caches are the user's own cache directories (DefaultCaches: the Go
	// module and build caches, npm's, pip's, yarn's and cargo's), always
	// exposed read-only, in preflight too: the tools trust what they find
	// there, and the user's own builds outside any sandbox would run a
	// planted entry.
	Caches []string
	// OwnCaches is the directory of the download caches Autarch keeps for
	// one repository, writable (a trust domain: one repository's commands
	// never write what another's install reads), with a subdirectory per
	// tool set as its cache (ownCacheDirs: npm_config_cache,
	// PIP_CACHE_DIR, YARN_CACHE_FOLDER). Go's module cache and cargo's
	// registry stay the user's, read-only: a preflight command can use
	// the modules and crates the user has, not download others.
	OwnCaches string
	// BuildCache is a writable directory used as the Go build cache
	// (GOCACHE): go refuses a read-only one ("open …-d: read-only file
	// system"), and the user's own is never writable. It is one
	// repository's (a trust domain: the go command trusts its cache's
	// entries, so one repository's commands must never write what
	// another's builds link), usually inside OwnCaches, and is read over
	// the user's own build cache, read-only, where that is possible
	// (gocache.go: Go 1.24 and later, once the probe ran the cache
	// program), so that the standard library is not compiled again in
	// every repository. Empty: a private empty cache under /tmp, which
	// is correct but cold for every command.
	BuildCache string
	// Gate makes the command a quality gate's (a check Autarch runs and
	// trusts: tools/verify): its go commands build with the gate's own Go
	// build cache, which no agent command can write, instead of
	// BuildCache, and run the test binaries (the agent's code) through
	// go test -exec, restricted so that they cannot write it
	// (gatecache.go). Only the go command and the compiler, linker and
	// vet it runs write that cache.
	Gate bool
	// GateCache is the folder of a gate's build cache, kept between
	// gates where Landlock can restrict the test binaries. Empty, or
	// without Landlock, each gate command builds with a throwaway cache
	// of its own.
	GateCache string
	// Env are extra KEY=VALUE variables, set after scrubbing (they are not
	// scrubbed: the caller chose them).
	Env []string
	// Timeout bounds Run; zero means DefaultTimeout.
	Timeout time.Duration
	// MaxOutput bounds each captured stream of Run; zero means
	// DefaultMaxOutput.
	MaxOutput int
	// Limits can only lower the sandbox's own limits (Options.Limits, the
	// user's): a positive field below the sandbox's wins, anything else
	// is ignored.
	Limits Limits

	// gate is the command's cgroup and limits while Run runs it; Command
	// alone applies the rlimits only.
	gate *gate
	// helper says whether masked files go through the mask helper
	// (masks.go): by default when the probe allowed it and they are many.
	helper helperMode
	// goCacheProg layers BuildCache over the user's build cache before
	// the probe allowed it (the probe's trial).
	goCacheProg bool
}

// Bind is one of Spec.Binds: Source shown read-only at Dest. Both are
// absolute, or Dest is relative to Spec.Dir.
type Bind struct {
	Source, Dest string
}

// Result is how a command ended.
type Result struct {
	// ExitCode is the command's exit status; -1 when it timed out or was
	// killed by a signal.
	ExitCode int
	Stdout   string
	Stderr   string
	// TimedOut reports that Spec.Timeout expired and everything the
	// command started was killed.
	TimedOut bool
	// Duration is the wall time from start to exit.
	Duration time.Duration
	// Limit names the resource limit the command hit (LimitProcs,
	// LimitMemory, LimitFileSize, LimitCPU), "" for none. Stderr then ends
	// with a line that says which limit, its value and what to do.
	Limit string
}

// limiter is a mechanism that applies Limits.
type limiter interface {
	// limits returns the sandbox's limits, defaults filled in, and where
	// the commands' cgroups can be created.
	limits() (Limits, cgroups, *slog.Logger)
}

// validate checks the parts of spec every mechanism needs and returns its
// cleaned Dir.
func (s Spec) validate() (string, error) {
	if s.Dir == "" {
		return "", errors.New("sandbox: no directory")
	}
	if !filepath.IsAbs(s.Dir) {
		return "", fmt.Errorf("sandbox: directory %q is not absolute", s.Dir)
	}
	dir := filepath.Clean(s.Dir)
	if strings.ContainsRune(s.Command, 0) {
		return "", errors.New("sandbox: command contains a NUL byte")
	}
	for _, kv := range s.Env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(kv, 0) {
			return "", fmt.Errorf("sandbox: environment entry %q is not KEY=VALUE", kv)
		}
	}
	if s.Timeout < 0 {
		return "", fmt.Errorf("sandbox: negative timeout %v", s.Timeout)
	}
	return dir, nil
}

// run is Run for any mechanism: it applies the timeout, captures the
// output and kills the process group when the command ends.
func run(ctx context.Context, sb Sandbox, spec Spec) (Result, error) {
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	limit := spec.MaxOutput
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lims Limits
	if lm, ok := sb.(limiter); ok {
		l, cgs, log := lm.limits()
		lims = l.lower(spec.Limits)
		g, err := cgs.create(lims, log)
		if err != nil {
			return Result{ExitCode: -1}, err
		}
		defer g.remove(context.WithoutCancel(ctx))
		spec.gate = &gate{limits: lims, cgroup: g}
	}
	// A command stopped at a limit is cancelled through cmdCtx only, so
	// that it is not mistaken for a timeout or the caller's cancellation.
	cmdCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd, err := sb.Command(cmdCtx, spec)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	stdout, stderr := newCapped(limit), newCapped(limit)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	exited := make(chan struct{})
	defer close(exited)
	if err := startScoped(cmd, landlockScopes(), exited); err != nil {
		spec.gate.close()
		return Result{ExitCode: -1}, fmt.Errorf("sandbox: starting the command: %w", err)
	}
	if err := spec.gate.release(cmd.Process); err != nil {
		_ = cmd.Wait()
		return Result{ExitCode: -1}, err
	}
	g := spec.gate.cgroupOf()
	procsHit := g.watch(cmdCtx, stop)
	runErr := cmd.Wait()
	stop()
	if cmd.Process != nil {
		// Children that outlived the shell in its group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	res := Result{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start)}
	if res.Limit = limitHit(res, exitCode(runErr), g, procsHit(), lims); res.Limit != "" {
		res.Stderr += "\n" + limitMessage(res.Limit, lims) + "\n"
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		res.ExitCode, res.TimedOut = -1, true
		return res, nil
	}
	if err := ctx.Err(); err != nil {
		res.ExitCode = -1
		return res, fmt.Errorf("sandbox: command cancelled: %w", err)
	}
	var ee *exec.ExitError
	switch {
	case res.Limit == LimitProcs:
		res.ExitCode = -1 // killed, though the shell may have exited first
		return res, nil
	case res.Limit != "":
		res.ExitCode = exitCode(runErr)
		return res, nil
	case runErr == nil:
		return res, nil
	case errors.As(runErr, &ee):
		res.ExitCode = ee.ExitCode()
		return res, nil
	case errors.Is(runErr, exec.ErrWaitDelay):
		return res, nil
	}
	res.ExitCode = -1
	return res, fmt.Errorf("sandbox: running command: %w", runErr)
}

// exitCode is the exit status of a command that ended with err, -1 when
// a signal killed it. bash and bwrap report a command killed by signal N
// as 128+N.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// groupCommand makes cmd a process group of its own, with no stdin, whose
// cancellation kills the whole group.
func groupCommand(cmd *exec.Cmd, env []string) {
	cmd.Env = env
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
}

// capped keeps the first quarter and the last three quarters of at most
// limit bytes of a stream, saying how much was cut.
type capped struct {
	limit   int
	head    bytes.Buffer
	tail    []byte // ring of the last limit-limit/4 bytes
	pos     int    // next write position in tail once full
	full    bool
	dropped int64
}

func newCapped(limit int) *capped { return &capped{limit: limit} }

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.limit/4 - c.head.Len(); room > 0 {
		k := min(room, len(p))
		c.head.Write(p[:k])
		p = p[k:]
	}
	size := c.limit - c.limit/4
	for len(p) > 0 && size > 0 {
		if !c.full {
			k := min(size-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			if len(c.tail) == size {
				c.full = true
			}
			continue
		}
		k := min(size-c.pos, len(p))
		copy(c.tail[c.pos:], p[:k])
		c.dropped += int64(k)
		c.pos = (c.pos + k) % size
		p = p[k:]
	}
	return n, nil
}

func (c *capped) String() string {
	if !c.full || c.dropped == 0 {
		return c.head.String() + string(c.tail)
	}
	var b strings.Builder
	b.WriteString(c.head.String())
	fmt.Fprintf(&b, "\n…[%d bytes of output dropped]…\n", c.dropped)
	b.Write(c.tail[c.pos:])
	b.Write(c.tail[:c.pos])
	return b.String()
}
