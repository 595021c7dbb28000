package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Unlimited turns one limit of Limits off.
const Unlimited = -1

// LimitsEnv is the environment variable in which the user sets the limits
// of every command: "procs=8192,mem=16G,fsize=8G,cpu=2h" (any subset; a
// value "off" turns that limit off).
const LimitsEnv = "AUTARCH_SANDBOX_LIMITS"

// Limits bound the resources of one command and everything it starts. A
// zero field is the default (DefaultLimits); Unlimited turns it off.
//
// Mechanisms, strongest available first: a cgroup (v1 pids and memory
// hierarchies, or a cgroup v2 directory whose controllers are delegated
// to us) that Autarch creates for the command and removes afterwards;
// else resource limits (rlimits), hard and soft, set before the sandbox
// starts, which no process inside can raise. Procs falls back to
// RLIMIT_NPROC, which the kernel does not enforce for root; Memory has no
// fallback: RLIMIT_AS and RLIMIT_DATA count address space that Go's race
// detector, the JVM and V8 reserve but never use, and would break real
// builds.
type Limits struct {
	// Procs bounds the processes and threads alive at once. Reaching it
	// stops the command (a fork bomb or a runaway build).
	Procs int
	// Memory bounds the memory (bytes, page cache and tmpfs included) of
	// all the command's processes together; the kernel kills a process of
	// the command that would exceed it.
	Memory int64
	// FileSize bounds every file a process writes (bytes, RLIMIT_FSIZE).
	FileSize int64
	// CPU bounds the CPU time of each process (RLIMIT_CPU): SIGXCPU at
	// the limit, SIGKILL a second later.
	CPU time.Duration
}

// DefaultLimits are the limits of a command the user did not limit
// otherwise, chosen so that real builds (go test -race ./... of a
// mid-size module, npm ci, a JVM build) pass:
//   - 128 tasks per CPU, at least 4096: go test -p runs one binary per
//     CPU, each with a thread per CPU and a few more; a JVM has 50-200
//     threads. The kernel's default pid_max is 1024 per CPU.
//   - half of the physical memory (whole GiB), at least 1 GiB: a JVM's default heap
//     is a quarter; the host keeps the other half.
//   - 8 GiB per file: more than any binary, archive or fixture a build
//     writes; a runaway write stops before filling a disk.
//   - 10 minutes of CPU time per CPU, at least an hour, per process: twice
//     what one process keeping every core busy uses in the longest
//     command timeout (5 minutes).
func DefaultLimits() Limits {
	cpus := runtime.NumCPU()
	mem := int64(8 << 30)
	if total, err := memTotal(); err == nil {
		mem = total
	}
	return Limits{
		Procs:    max(4096, 128*cpus),
		Memory:   max(1<<30, mem/2&^(1<<30-1)),
		FileSize: 8 << 30,
		CPU:      max(time.Hour, time.Duration(cpus)*10*time.Minute),
	}
}

// memTotal reads the physical memory from /proc/meminfo.
func memTotal() (int64, error) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("reading the memory size: %w", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("reading the memory size: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("reading the memory size: no MemTotal in /proc/meminfo")
}

// ParseLimits reads the user's limits: comma-separated key=value pairs
// with the keys procs, mem, fsize and cpu; sizes take K, M, G or T
// (powers of 1024), CPU time a Go duration ("90s", "2h") or seconds; the
// value "off" turns a limit off. Unnamed limits are left zero (default).
func ParseLimits(s string) (Limits, error) {
	var l Limits
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, ok := strings.Cut(part, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || val == "" {
			return Limits{}, fmt.Errorf("%s: %q is not key=value (keys procs, mem, fsize, cpu; e.g. procs=8192,mem=16G,fsize=8G,cpu=2h)", LimitsEnv, part)
		}
		off := val == "off" || val == "unlimited"
		var err error
		switch key {
		case "procs":
			if off {
				l.Procs = Unlimited
				break
			}
			n, perr := strconv.Atoi(val)
			if perr != nil || n < 1 {
				err = errors.New("not a number of processes: use a whole number of at least 1 (e.g. 8192) or off")
			}
			l.Procs = n
		case "mem", "memory":
			if off {
				l.Memory = Unlimited
				break
			}
			l.Memory, err = parseSize(val)
		case "fsize", "filesize":
			if off {
				l.FileSize = Unlimited
				break
			}
			l.FileSize, err = parseSize(val)
		case "cpu":
			if off {
				l.CPU = Unlimited
				break
			}
			l.CPU, err = parseCPU(val)
		default:
			return Limits{}, fmt.Errorf("%s: unknown limit %q: use procs, mem, fsize or cpu", LimitsEnv, key)
		}
		if err != nil {
			return Limits{}, fmt.Errorf("%s: %s=%q: %w", LimitsEnv, key, val, err)
		}
	}
	return l, nil
}

// parseSize reads "512M", "16G", "1048576".
func parseSize(s string) (int64, error) {
	num := strings.TrimRight(strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I"), "KMGT")
	unit := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(s), "B"), "I")[len(num):]
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || len(unit) > 1 {
		return 0, errors.New("not a size: use a positive number of bytes with K, M, G or T (e.g. 16G) or off")
	}
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[unit]
	if n > (1<<62)>>shift {
		return 0, errors.New("too large")
	}
	return n << shift, nil
}

// parseCPU reads "90s", "2h" or "600" (seconds).
func parseCPU(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, errors.New("not a CPU time: use a duration of at least 1s (e.g. 90s, 2h), a number of seconds, or off")
	}
	return d, nil
}

// withDefaults fills the zero fields of l from def.
func (l Limits) withDefaults(def Limits) Limits {
	if l.Procs == 0 {
		l.Procs = def.Procs
	}
	if l.Memory == 0 {
		l.Memory = def.Memory
	}
	if l.FileSize == 0 {
		l.FileSize = def.FileSize
	}
	if l.CPU == 0 {
		l.CPU = def.CPU
	}
	return l
}

// lower returns l with each limit o sets (positive) lowered to it: a
// command's Spec can only tighten the sandbox's limits.
func (l Limits) lower(o Limits) Limits {
	l.Procs = lowerTo(l.Procs, o.Procs)
	l.Memory = lowerTo(l.Memory, o.Memory)
	l.FileSize = lowerTo(l.FileSize, o.FileSize)
	l.CPU = lowerTo(l.CPU, o.CPU)
	return l
}

func lowerTo[T int | int64 | time.Duration](cur, to T) T {
	if to > 0 && (cur <= 0 || to < cur) {
		return to
	}
	return cur
}

// String is "procs=4096,mem=8G,fsize=8G,cpu=1h0m0s", in LimitsEnv's syntax.
func (l Limits) String() string {
	num := func(n int64, f func(int64) string) string {
		if n <= 0 {
			return "off"
		}
		return f(n)
	}
	return "procs=" + num(int64(l.Procs), func(n int64) string { return strconv.FormatInt(n, 10) }) +
		",mem=" + num(l.Memory, formatSize) +
		",fsize=" + num(l.FileSize, formatSize) +
		",cpu=" + num(int64(l.CPU), func(n int64) string { return time.Duration(n).String() })
}

// formatSize writes n in the largest unit that divides it ("16G", "1536M").
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Limit names of Result.Limit.
const (
	LimitProcs    = "procs"
	LimitMemory   = "mem"
	LimitFileSize = "fsize"
	LimitCPU      = "cpu"
)

// Exit statuses of a process killed by the file-size and CPU-time
// signals, as bash and bwrap report them.
const (
	exitXCPU  = 128 + int(syscall.SIGXCPU)
	exitXFSZ  = 128 + int(syscall.SIGXFSZ)
	pollLimit = 50 * time.Millisecond
)

// limitMessage says which limit the command hit, its value and what to do.
func limitMessage(which string, l Limits) string {
	raise := func(key, val string) string {
		return fmt.Sprintf("if the work really needs more, the user can raise it in the environment Autarch runs in (%s=%s=%s)", LimitsEnv, key, val)
	}
	switch which {
	case LimitProcs:
		return fmt.Sprintf("autarch sandbox: the command was stopped: it had %d processes and threads at once, the sandbox's limit (a fork bomb or a runaway build); run fewer in parallel, or %s",
			l.Procs, raise("procs", strconv.Itoa(2*l.Procs)))
	case LimitMemory:
		return fmt.Sprintf("autarch sandbox: the command used %s of memory, the sandbox's limit, and the kernel killed a process of it (a memory hog or a leak); use less memory, or %s",
			formatSize(l.Memory), raise("mem", formatSize(2*l.Memory)))
	case LimitFileSize:
		return fmt.Sprintf("autarch sandbox: a process was stopped when a file it wrote reached %s, the sandbox's file-size limit (a runaway write); write less, or %s",
			formatSize(l.FileSize), raise("fsize", formatSize(2*l.FileSize)))
	case LimitCPU:
		return fmt.Sprintf("autarch sandbox: a process was stopped after %v of CPU time, the sandbox's per-process limit (an endless loop or a runaway build); %s",
			l.CPU, raise("cpu", (2*l.CPU).String()))
	}
	return ""
}

// limitHit names the limit a finished command hit, "" for none: the
// cgroup's counters first, then the signals the rlimits send.
func limitHit(res Result, code int, g *cgroup, procsHit bool, l Limits) string {
	switch {
	case procsHit:
		return LimitProcs
	case g != nil && g.oomKilled():
		return LimitMemory
	case l.CPU > 0 && (code == exitXCPU || strings.Contains(res.Stderr, "CPU time limit exceeded")):
		return LimitCPU
	case l.FileSize > 0 && (code == exitXFSZ || strings.Contains(res.Stderr, "File size limit exceeded")):
		return LimitFileSize
	}
	return ""
}

// cgroups is where commands' cgroups can be created: a v1 pids and a v1
// memory directory (the process's own cgroup in each hierarchy), or one v2
// directory with the pids and memory controllers delegated. Empty
// directories mean that controller has no cgroup here.
type cgroups struct {
	pids, memory string
	v2           bool
	// why says why a controller has no cgroup, for autarch doctor.
	why string
}

// detectCgroups finds the process's cgroups in /proc/self/cgroup and
// their mounts in /proc/self/mountinfo, and keeps the writable ones.
func detectCgroups() cgroups {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return cgroups{why: fmt.Sprintf("cannot read /proc/self/cgroup: %v", err)}
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return cgroups{why: fmt.Sprintf("cannot read /proc/self/mountinfo: %v", err)}
	}
	v1 := map[string]string{} // controller -> our directory
	v2 := ""
	for line := range strings.Lines(string(own)) {
		id, rest, _ := strings.Cut(strings.TrimSpace(line), ":")
		ctrls, path, _ := strings.Cut(rest, ":")
		if id == "0" && ctrls == "" {
			v2 = cgroupDir(mounts, "cgroup2", "", path)
			continue
		}
		for _, c := range strings.Split(ctrls, ",") {
			if c == "pids" || c == "memory" {
				v1[c] = cgroupDir(mounts, "cgroup", c, path)
			}
		}
	}
	var g cgroups
	if writable(v1["pids"]) {
		g.pids = v1["pids"]
	}
	if writable(v1["memory"]) {
		g.memory = v1["memory"]
	}
	if g.pids == "" && g.memory == "" && writable(v2) {
		// Creating a child with controllers needs them in our own
		// cgroup's subtree_control: true at a (namespace's) root or in a
		// delegated cgroup without processes of its own.
		ctl, _ := os.ReadFile(filepath.Join(v2, "cgroup.subtree_control"))
		fields := strings.Fields(string(ctl))
		if slices.Contains(fields, "pids") {
			g.pids, g.v2 = v2, true
		}
		if slices.Contains(fields, "memory") {
			g.memory, g.v2 = v2, true
		}
	}
	switch {
	case g.pids == "" && g.memory == "":
		g.why = "no writable cgroup with the pids or memory controller (cgroup v2 needs them delegated: run Autarch in a systemd scope with Delegate=yes, or as root with cgroup v1)"
	case g.pids == "":
		g.why = "no writable pids cgroup"
	case g.memory == "":
		g.why = "no writable memory cgroup"
	}
	return g
}

// cgroupDir returns where the cgroup path of a hierarchy (fstype cgroup
// with controller, or cgroup2) is mounted; "" when it is not visible.
func cgroupDir(mountinfo []byte, fstype, controller, path string) string {
	sc := bufio.NewScanner(bytes.NewReader(mountinfo))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		f, p := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(p) < 3 || p[0] != fstype {
			continue
		}
		if controller != "" && !slices.Contains(strings.Split(p[2], ","), controller) {
			continue
		}
		root, mnt := f[3], f[4]
		rel, ok := strings.CutPrefix(path, root)
		if root == "/" {
			rel, ok = path, true
		}
		if !ok || (rel != "" && !strings.HasPrefix(rel, "/")) {
			continue
		}
		return filepath.Join(mnt, rel)
	}
	return ""
}

func writable(dir string) bool {
	return dir != "" && unix.Access(dir, unix.W_OK) == nil
}

// mechanism says how each limit is applied, for autarch doctor.
func (c cgroups) mechanism(l Limits) string {
	version := "v1"
	if c.v2 {
		version = "v2"
	}
	var parts []string
	switch {
	case l.Procs <= 0:
		parts = append(parts, "procs: off")
	case c.pids != "":
		parts = append(parts, fmt.Sprintf("procs: %d (a pids cgroup %s per command under %s)", l.Procs, version, c.pids))
	case os.Getuid() == 0:
		parts = append(parts, fmt.Sprintf("procs: NOT LIMITED (%s; RLIMIT_NPROC does not bind root)", c.why))
	default:
		parts = append(parts, fmt.Sprintf("procs: %d more than the user's own (RLIMIT_NPROC)", l.Procs))
	}
	switch {
	case l.Memory <= 0:
		parts = append(parts, "mem: off")
	case c.memory != "":
		parts = append(parts, fmt.Sprintf("mem: %s for the command's processes together (a memory cgroup %s per command under %s)", formatSize(l.Memory), version, c.memory))
	default:
		parts = append(parts, fmt.Sprintf("mem: NOT LIMITED (%s; an address-space rlimit would break Go's race detector, the JVM and V8)", c.why))
	}
	if l.FileSize > 0 {
		parts = append(parts, fmt.Sprintf("fsize: %s per file (RLIMIT_FSIZE)", formatSize(l.FileSize)))
	} else {
		parts = append(parts, "fsize: off")
	}
	if l.CPU > 0 {
		parts = append(parts, fmt.Sprintf("cpu: %v per process (RLIMIT_CPU)", l.CPU))
	} else {
		parts = append(parts, "cpu: off")
	}
	return strings.Join(parts, "; ")
}

// cgroup is one command's cgroup: a directory in each hierarchy (one in
// v2), removed by remove.
type cgroup struct {
	pids, memory string // "" when that controller has no cgroup
	v2           bool
	log          *slog.Logger
}

// create makes the cgroup of one command with l's procs and memory
// limits; nil when no controller has a cgroup or none is needed.
func (c cgroups) create(l Limits, log *slog.Logger) (*cgroup, error) {
	wantPids, wantMem := c.pids != "" && l.Procs > 0, c.memory != "" && l.Memory > 0
	if !wantPids && !wantMem {
		return nil, nil
	}
	name := "autarch-" + strconv.Itoa(os.Getpid()) + "-" + strings.ToLower(rand.Text()[:10])
	g := &cgroup{v2: c.v2, log: log}
	if c.v2 {
		base := c.pids
		if base == "" {
			base = c.memory
		}
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, cgroupError(err)
		}
		if wantPids {
			g.pids = dir
		}
		if wantMem {
			g.memory = dir
		}
	} else {
		for _, x := range []struct {
			want bool
			base string
			dst  *string
		}{{wantPids, c.pids, &g.pids}, {wantMem, c.memory, &g.memory}} {
			if !x.want {
				continue
			}
			dir := filepath.Join(x.base, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				g.remove(context.Background())
				return nil, cgroupError(err)
			}
			*x.dst = dir
		}
	}
	if err := g.set(l); err != nil {
		g.remove(context.Background())
		return nil, err
	}
	return g, nil
}

// cgroupError says that a command cannot get its cgroup, and the way out.
func cgroupError(err error) error {
	return fmt.Errorf("sandbox: creating the command's cgroup: %w (autarch doctor shows the limits in force; %s=procs=off,mem=off runs commands without a cgroup)", err, LimitsEnv)
}

// set writes the limits into the cgroup.
func (g *cgroup) set(l Limits) error {
	write := func(dir, file, val string, optional bool) error {
		err := os.WriteFile(filepath.Join(dir, file), []byte(val), 0)
		if err != nil && !(optional && errors.Is(err, os.ErrNotExist)) {
			return cgroupError(fmt.Errorf("setting %s: %w", file, err))
		}
		return nil
	}
	mem := strconv.FormatInt(l.Memory, 10)
	var errs []error
	if g.pids != "" && l.Procs > 0 {
		errs = append(errs, write(g.pids, "pids.max", strconv.Itoa(l.Procs), false))
	}
	if g.memory != "" && g.v2 {
		errs = append(errs, write(g.memory, "memory.max", mem, false), write(g.memory, "memory.swap.max", "0", true))
	} else if g.memory != "" {
		// Without swap accounting memsw is missing; with it, the
		// command may not swap beyond the limit either.
		errs = append(errs, write(g.memory, "memory.limit_in_bytes", mem, false), write(g.memory, "memory.memsw.limit_in_bytes", mem, true))
	}
	return errors.Join(errs...)
}

// procsFiles are the files a process writes its pid to, to join.
func (g *cgroup) procsFiles() []string {
	if g == nil {
		return nil
	}
	var out []string
	for _, d := range []string{g.pids, g.memory} {
		if d != "" && !slices.Contains(out, filepath.Join(d, "cgroup.procs")) {
			out = append(out, filepath.Join(d, "cgroup.procs"))
		}
	}
	return out
}

// counter reads "name N" from a cgroup's key-value file; 0 when missing.
func counter(dir, file, name string) int64 {
	if dir == "" {
		return 0
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == name {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// procsHit reports that a fork was refused for the pids limit.
func (g *cgroup) procsHit() bool {
	return g != nil && counter(g.pids, "pids.events", "max") > 0
}

// oomKilled reports that the kernel killed a process for the memory limit.
func (g *cgroup) oomKilled() bool {
	if g == nil || g.memory == "" {
		return false
	}
	if g.v2 {
		return counter(g.memory, "memory.events", "oom_kill") > 0
	}
	return counter(g.memory, "memory.oom_control", "oom_kill") > 0
}

// watch polls the pids counter while the command runs and calls stop once
// when a fork was refused: a fork bomb at the limit would otherwise spin
// until the timeout.
func (g *cgroup) watch(ctx context.Context, stop func()) (hit func() bool) {
	done := make(chan bool, 1)
	if g == nil || g.pids == "" {
		done <- false
		return func() bool { return <-done }
	}
	go func() {
		t := time.NewTicker(pollLimit)
		defer t.Stop()
		for {
			if g.procsHit() {
				stop()
				done <- true
				return
			}
			select {
			case <-ctx.Done():
				done <- g.procsHit()
				return
			case <-t.C:
			}
		}
	}()
	return func() bool { return <-done }
}

// remove kills whatever is left in the cgroup and removes its
// directories, retrying until ctx ends; failures are logged: the command
// has ended and a leftover empty cgroup harms nothing.
func (g *cgroup) remove(ctx context.Context) {
	if g == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for _, dir := range []string{g.pids, g.memory} {
		if dir == "" {
			continue
		}
		// The processes of a PID namespace leave their cgroup a moment
		// after bwrap exits: retry soon, then less often.
		for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
			g.killAll(dir)
			err := os.Remove(dir)
			if err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			if ctx.Err() != nil {
				g.log.Warn("sandbox: a command's cgroup could not be removed", "dir", dir, "err", err)
				break
			}
			time.Sleep(wait)
		}
	}
}

// killAll SIGKILLs every process in dir (cgroup.kill where the kernel
// has it).
func (g *cgroup) killAll(dir string) {
	if g.v2 && os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return
	}
	for f := range strings.FieldsSeq(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// rlim is one resource limit to set, in bytes, seconds or tasks.
type rlim struct {
	res        int
	flag       string // bash ulimit's flag
	unit       uint64 // bash ulimit's unit in non-POSIX mode
	soft, hard uint64
}

// rlimits returns the resource limits l needs on top of the cgroup g:
// soft and hard (CPU: SIGXCPU at the limit, SIGKILL a second later),
// never above the current hard limit, which unprivileged users cannot
// raise; none for a resource whose hard limit is already lower.
func rlimits(l Limits, g *cgroup) []rlim {
	var want []rlim
	if l.FileSize > 0 {
		want = append(want, rlim{res: unix.RLIMIT_FSIZE, flag: "f", unit: 1024, soft: uint64(max(1024, l.FileSize))})
	}
	if l.CPU > 0 {
		secs := uint64(max(1, l.CPU/time.Second))
		want = append(want, rlim{res: unix.RLIMIT_CPU, flag: "t", unit: 1, soft: secs, hard: secs + 1})
	}
	if l.Procs > 0 && (g == nil || g.pids == "") && os.Getuid() != 0 {
		want = append(want, rlim{res: unix.RLIMIT_NPROC, flag: "u", unit: 1, soft: uint64(l.Procs + userTasks())})
	}
	var out []rlim
	for _, r := range want {
		var cur unix.Rlimit
		if err := unix.Getrlimit(r.res, &cur); err != nil {
			continue
		}
		r.hard = min(max(r.hard, r.soft), cur.Max)
		r.soft = min(r.soft, r.hard)
		if r.hard/r.unit == 0 {
			continue
		}
		out = append(out, r)
	}
	return out
}

// wrap returns argv run by a host bash that first joins the command's
// cgroup and sets its rlimits (soft and hard, so that nothing the command
// starts can raise them), then execs argv: both in force before argv
// forks, as Go sets neither on a child. Run holds bwrap at its
// --block-fd instead (gate), which saves this exec; wrap serves Command
// alone, Unconfined and a setuid bwrap. Only numbers and our own cgroup
// paths reach the script; argv is passed as arguments, never parsed.
// bash -p ignores BASH_ENV, ENV, SHELLOPTS and exported functions:
// nothing from the environment runs on the host.
func wrap(argv []string, l Limits, g *cgroup) []string {
	const fail = `{ echo "autarch sandbox: could not apply the command's limits" >&2; exit 125; }`
	var s strings.Builder
	s.WriteString("set +o posix; ")
	files := g.procsFiles()
	for i := range files {
		fmt.Fprintf(&s, `echo $$ > "$%d" || %s; `, i+1, fail)
	}
	if len(files) > 0 {
		fmt.Fprintf(&s, "shift %d; ", len(files))
	}
	for _, r := range rlimits(l, g) {
		fmt.Fprintf(&s, "ulimit -S%s %d && ulimit -H%s %d || %s; ", r.flag, r.soft/r.unit, r.flag, r.hard/r.unit, fail)
	}
	s.WriteString(`exec "$@"`)
	out := []string{"bash", "-p", "-c", s.String(), "autarch-limits"}
	out = append(out, files...)
	return append(out, argv...)
}

// gate holds bwrap's sandboxed child before it runs anything of the
// command (bwrap's --block-fd) while Run reads the child's pid (bwrap's
// --info-fd), puts it in the command's cgroup and sets its rlimits
// (prlimit); everything the command starts inherits both.
type gate struct {
	limits Limits
	cgroup *cgroup
	info   *os.File   // our end of --info-fd
	block  *os.File   // our end of --block-fd
	theirs []*os.File // bwrap's ends, closed once it started
}

// bwrapArgs opens the pipes and returns bwrap's options for them, the
// pipes being cmd.ExtraFiles (fds 3 and 4).
func (g *gate) bwrapArgs() ([]string, []*os.File, error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoR.Close()
		infoW.Close()
		return nil, nil, fmt.Errorf("sandbox: %w", err)
	}
	g.info, g.block, g.theirs = infoR, blockW, []*os.File{infoW, blockR}
	return []string{"--info-fd", "3", "--block-fd", "4"}, g.theirs, nil
}

// release applies the limits to the held child and lets it run. When
// bwrap ended before reporting a child (its setup failed), there is
// nothing to limit and its exit says why; any other failure kills it, so
// that the command never runs unlimited.
func (g *gate) release(p *os.Process) error {
	if g == nil || g.info == nil {
		return nil
	}
	for _, f := range g.theirs {
		f.Close()
	}
	defer g.info.Close()
	defer g.block.Close()
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(g.info).Decode(&info); err != nil || info.ChildPid <= 0 {
		// Usually bwrap failed before it made a child; its exit says why.
		// A child held anyway must not run unlimited.
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		return nil
	}
	err := g.apply(info.ChildPid)
	if err == nil {
		_, err = g.block.Write([]byte{1})
	}
	if err != nil {
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		_ = syscall.Kill(info.ChildPid, syscall.SIGKILL)
		return fmt.Errorf("sandbox: applying the command's limits: %w", err)
	}
	return nil
}

// apply puts pid in the cgroup and sets its rlimits.
func (g *gate) apply(pid int) error {
	for _, f := range g.cgroup.procsFiles() {
		if err := os.WriteFile(f, []byte(strconv.Itoa(pid)), 0); err != nil {
			return cgroupError(err)
		}
	}
	for _, r := range rlimits(g.limits, g.cgroup) {
		if err := unix.Prlimit(pid, r.res, &unix.Rlimit{Cur: r.soft, Max: r.hard}, nil); err != nil {
			return fmt.Errorf("prlimit %s: %w", r.flag, err)
		}
	}
	return nil
}

// close releases the pipes of a gate whose bwrap never started.
func (g *gate) close() {
	if g == nil {
		return
	}
	for _, f := range append(g.theirs, g.info, g.block) {
		if f != nil {
			f.Close()
		}
	}
}

// userTasks counts the tasks (threads) of the real user now: without
// root, RLIMIT_NPROC bounds them all together, also the host's.
func userTasks() int {
	uid := uint32(os.Getuid())
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != uid {
			continue
		}
		n += int(counter(filepath.Join("/proc", e.Name()), "status", "Threads:"))
	}
	return n
}

// cgroupOf is the gate's cgroup, nil without one.
func (g *gate) cgroupOf() *cgroup {
	if g == nil {
		return nil
	}
	return g.cgroup
}
