package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// Status is whether commands can be confined here, and why not.
type Status struct {
	// Available reports that bwrap confined a trial command.
	Available bool
	// Mechanism is "bubblewrap".
	Mechanism string
	// Version is bwrap --version ("bubblewrap 0.8.0"); empty when missing.
	Version string
	// Reason says why commands cannot be confined, and what to do.
	Reason string
	// Stderr is bwrap's own message from the trial, verbatim.
	Stderr string
	// Duration is how long the trial took.
	Duration time.Duration
	// Note says why the trial did not confirm an available sandbox (it
	// never finished in time on a busy machine): bubblewrap is used all
	// the same, and a command it cannot confine fails with its message.
	Note string
}

// String is one line: "bubblewrap 0.8.0: available" or the reason.
func (s Status) String() string {
	if s.Available {
		if s.Note != "" {
			return fmt.Sprintf("%s: available (%s)", s.Version, s.Note)
		}
		return fmt.Sprintf("%s: available", s.Version)
	}
	msg := s.Mechanism + " unavailable: " + s.Reason
	if s.Stderr != "" {
		msg += " (bwrap said: " + s.Stderr + ")"
	}
	return msg
}

// Probe runs the full confinement (every namespace, no network, a
// writable trial directory) around `true` and says whether it worked. A
// trial that does not finish within the probe's generous limit, or is
// killed by a signal, is tried again (probeTries in all); one that never
// finishes leaves the sandbox on (Note says so): a busy machine never
// turns confinement off, and a command bwrap cannot confine fails with
// bwrap's message. Only a trial that bwrap refuses is a failure.
func (b *Bwrap) Probe(ctx context.Context) Status {
	st := Status{Mechanism: "bubblewrap", Version: b.version}
	dir, err := os.MkdirTemp("", "autarch-sandbox-probe-")
	if err != nil {
		st.Reason = fmt.Sprintf("cannot create a trial directory: %v", err)
		return st
	}
	defer os.RemoveAll(dir)
	limit := b.probeTimeout
	if limit <= 0 {
		limit = DefaultProbeTimeout
	}
	for try := 1; try <= probeTries; try++ {
		res, err := b.Run(ctx, Spec{Dir: dir, Command: "true", Timeout: limit})
		st.Duration = res.Duration
		st.Stderr = strings.TrimSpace(res.Stderr)
		switch {
		case err != nil:
			st.Reason = fmt.Sprintf("bwrap could not run: %v", err)
			return st
		case ctx.Err() != nil:
			st.Reason = fmt.Sprintf("the trial was cancelled: %v", ctx.Err())
			return st
		case res.TimedOut || res.ExitCode == -1:
			b.log.Warn("sandbox: the trial command did not finish; trying again", "try", try, "limit", limit, "stderr", st.Stderr)
			continue
		case res.ExitCode != 0:
			st.Reason = explain(st.Stderr, res.ExitCode)
			return st
		}
		st.Available = true
		if why := b.probeMaskHelper(ctx, dir, limit); why != "" {
			b.log.Warn("sandbox: bwrap will make every mask itself, slower with many masked files: the mask helper's trial failed", "why", why)
		}
		if why := b.probeGoCache(ctx, dir, limit); why != "" {
			b.log.Warn("sandbox: commands build with their repository's Go build cache alone, compiling the standard library again in each repository: the build cache program's trial failed", "why", why)
		}
		return st
	}
	st.Available = true
	st.Stderr = ""
	st.Note = fmt.Sprintf("the trial `true` did not finish within %v in %d tries, as on a busy machine; commands stay confined, and one bubblewrap cannot start fails with its message", limit, probeTries)
	return st
}

// explain turns bwrap's failure into what the user can do about it.
func explain(stderr string, code int) string {
	s := strings.ToLower(stderr)
	switch {
	case strings.Contains(s, "namespace") || strings.Contains(s, "uid map") || strings.Contains(s, "setting up uid") ||
		strings.Contains(s, "operation not permitted") || strings.Contains(s, "permission denied"):
		return "user namespaces are refused by the kernel (kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0, " +
			"or AppArmor's kernel.apparmor_restrict_unprivileged_userns=1 without a bwrap profile; in a container, a seccomp " +
			"profile that forbids clone(CLONE_NEWUSER)): allow them (sysctl -w kernel.unprivileged_userns_clone=1, or an " +
			"AppArmor profile for /usr/bin/bwrap with `userns,`), or opt in to unconfined commands"
	case strings.Contains(s, "unknown option") || strings.Contains(s, "unrecognized option"):
		return fmt.Sprintf("this bubblewrap is too old for the options autarch needs (bubblewrap 0.4 or newer): exit %d", code)
	}
	return fmt.Sprintf("a trial command failed with exit %d", code)
}

// Detect finds bwrap, reads the host layout and probes it. The sandbox is
// nil when commands cannot be confined; the status says why.
func Detect(ctx context.Context, opts Options) (*Bwrap, Status) {
	b, err := NewBwrap(ctx, opts)
	if err != nil {
		st := Status{Mechanism: "bubblewrap", Reason: err.Error()}
		if errors.Is(err, ErrNotInstalled) {
			st.Reason = ErrNotInstalled.Error()
		}
		return nil, st
	}
	st := b.Probe(ctx)
	if !st.Available {
		return nil, st
	}
	return b, st
}

// Select returns the sandbox commands run in: bubblewrap when it works;
// Unconfined when it does not and the user opted in to unconfined
// commands (allowUnconfined); otherwise an error carrying the status.
func Select(ctx context.Context, opts Options, allowUnconfined bool) (Sandbox, Status, error) {
	b, st := Detect(ctx, opts)
	if b != nil {
		return b, st, nil
	}
	if allowUnconfined {
		return Unconfined{Limits: opts.Limits}, st, nil
	}
	return nil, st, fmt.Errorf("sandbox: %s", st)
}

// Report describes the sandbox for `autarch doctor`: the mechanism and
// its version, whether the namespaces work, what a command can write,
// read and not read by default, and the network policy.
func (b *Bwrap) Report(ctx context.Context) string {
	st := b.Probe(ctx)
	var r strings.Builder
	fmt.Fprintf(&r, "mechanism: bubblewrap (%s)\n", b.path)
	fmt.Fprintf(&r, "version: %s\n", b.version)
	if st.Available {
		fmt.Fprintf(&r, "namespaces: ok (user if possible, pid, ipc, uts, cgroup if possible, net; trial took %v)\n", st.Duration.Round(time.Millisecond))
		if st.Note != "" {
			fmt.Fprintf(&r, "note: %s\n", st.Note)
		}
	} else {
		fmt.Fprintf(&r, "namespaces: FAILED: %s\n", st.Reason)
		if st.Stderr != "" {
			fmt.Fprintf(&r, "bwrap stderr: %s\n", st.Stderr)
		}
	}
	r.WriteString("writable: the worktree or workspace, its extra git directories (a linked worktree's gitdir, objects, refs, logs), private empty /tmp, /var/tmp and home directory")
	if b.home != "" {
		fmt.Fprintf(&r, " (%s)", b.home)
	}
	r.WriteString("; caches only in preflight\n")
	var ro []string
	for _, d := range systemDirs {
		if exists(d) {
			ro = append(ro, d)
		}
	}
	ro = append(ro, b.exposed...)
	fmt.Fprintf(&r, "read-only: %s; the shared caches outside preflight; .git, .autarch and protected files inside the worktree\n", strings.Join(ro, ", "))
	fmt.Fprintf(&r, "masked (empty): %s; secret files of the workspace\n", strings.Join(b.masked, ", "))
	r.WriteString("invisible: the rest of the home directory (~/.ssh, ~/.aws, ~/.config, ~/.netrc…), other projects, /var, /run, /srv, /mnt, /media, /root\n")
	r.WriteString("network: none (own network namespace, loopback only) except in stages that need it (preflight)\n")
	r.WriteString("processes: own PID namespace; a timeout kills every process the command started; no capabilities; a new session (no terminal)\n")
	if b.maskHelper.Load() {
		fmt.Fprintf(&r, "mask helper: on: from %d masked files on, autarch's own helper binds them inside the sandbox, then drops every capability and runs the command (bwrap's cost grows with the square of the number of masks)\n", b.helperMin())
	} else {
		r.WriteString("mask helper: off (its trial failed or bwrap refuses --cap-add): bwrap makes every mask, slower with many masked files\n")
	}
	if b.goCacheProg.Load() {
		fmt.Fprintf(&r, "go build cache: each repository's own (<git dir>/autarch/caches/go-build), read over yours (%s) read-only through GOCACHEPROG (Go 1.24 or newer)\n", b.goCache)
	} else {
		r.WriteString("go build cache: each repository's own (<git dir>/autarch/caches/go-build), empty at first: no build cache of yours to read, or the cache program's trial failed\n")
	}
	fmt.Fprintf(&r, "go build cache of the quality gates: %s\n", b.GateCacheMode())
	if landlockScopes() != 0 {
		r.WriteString("abstract sockets and signals: scoped (Landlock ABI 6): a command reaches no abstract unix socket and signals no process made outside its sandbox, even with the network\n")
	} else {
		r.WriteString("abstract sockets and signals: not scoped (Landlock ABI 6 needs Linux 6.12): a command with the network (preflight by default) can reach the host's abstract unix sockets, X11's among them\n")
	}
	fmt.Fprintf(&r, "limits per command: %s; set with %s=procs=…,mem=…,fsize=…,cpu=… (off turns one off)\n", b.cgs.mechanism(b.lim), LimitsEnv)
	fmt.Fprintf(&r, "environment: an allow-list (the shell's, the locale's and the toolchains' settings; URL passwords stripped, values that look like credentials dropped) plus the names you add (AUTARCH_SANDBOX_ENV, sandbox.env in your user config); passing here: %s\n", strings.Join(EnvNames(b.environ()), " "))
	return r.String()
}
