package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestLimitsStopAttacks runs each attack in the real sandbox and expects
// it to end at its limit, quickly, with a message that names the limit,
// its value and what to do, and nothing of it left on the host.
func TestLimitsStopAttacks(t *testing.T) {
	f := newFixture(t)
	if f.sb.cgs.pids == "" || f.sb.cgs.memory == "" {
		t.Fatalf("these tests need writable pids and memory cgroups (%s)", f.sb.cgs.why)
	}
	marker := fmt.Sprintf("autarch-limits-%d", time.Now().UnixNano())
	const procs = 200
	tests := []struct {
		name, command string
		limits        Limits
		want, value   string
		check         func(t *testing.T)
	}{
		{"perl fork loop", "perl -e 'fork while 1' " + marker, Limits{Procs: procs}, LimitProcs, "200 processes", nil},
		{"python os.fork loop", "python3 -c 'import os\nwhile True:\n  try: os.fork()\n  except OSError: pass' " + marker, Limits{Procs: procs}, LimitProcs, "200 processes", nil},
		// A background sh reads /dev/null and exits at once: the literal
		// variant churns rather than piles up, so it also runs with
		// children that stay.
		{"sh spawning sh", "sh -c 'while :; do sh & done' " + marker, Limits{Procs: procs}, "", "", nil},
		{"sh spawning sh that stay", "sh -c 'while :; do sh -c \"sleep 1000\" & done' " + marker, Limits{Procs: procs}, LimitProcs, "200 processes", nil},
		// The shell stays: alone, it exits at once and its PID namespace
		// takes the bomb with it, often before the bomb reaches the limit.
		{"bash function bomb", ":(){ :|:& };:; sleep 100 # " + marker, Limits{Procs: procs}, LimitProcs, "200 processes", nil},
		{"10 GB write", "dd if=/dev/zero of=big bs=1M count=10000", Limits{FileSize: 64 << 20}, LimitFileSize, "64M", func(t *testing.T) {
			p := filepath.Join(f.dir, "big")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("dd wrote nothing: %v", err)
			}
			if fi.Size() > 64<<20 {
				t.Errorf("the file grew to %d bytes, over the 64M limit", fi.Size())
			}
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}},
		{"python 20 GB allocation", "python3 -c 'b = bytearray(b\"x\") * (20 << 30)' " + marker, Limits{Memory: 256 << 20}, LimitMemory, "256M", nil},
		{"perl 20 GB string", "perl -e '$x = \"x\" x (20 * 2**30)' " + marker, Limits{Memory: 256 << 20}, LimitMemory, "256M", nil},
		{"CPU spin", "while :; do :; done # " + marker, Limits{CPU: time.Second}, LimitCPU, "1s of CPU time", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := hostTasks()
			start := time.Now()
			if tt.want == "" {
				// Churn: the timeout ends it, or on a loaded machine, where
				// the children live long enough to pile up, the limit.
				res := f.run(t, Spec{Command: tt.command, Limits: tt.limits, Timeout: 3 * time.Second})
				if !(res.TimedOut && res.Limit == "") && !(!res.TimedOut && res.Limit == LimitProcs) {
					t.Errorf("want a timeout or the process limit, got %+v", res)
				}
				waitGone(t, marker)
				fewTasksLeft(t, before, procs/2)
				return
			}
			res := f.run(t, Spec{Command: tt.command, Limits: tt.limits, Timeout: 2 * time.Minute})
			if res.TimedOut || res.Limit != tt.want {
				t.Fatalf("want the %s limit, got limit %q, exit %d, timed out %v, stderr %q", tt.want, res.Limit, res.ExitCode, res.TimedOut, tail(res.Stderr))
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("stopping took %v", d)
			}
			if res.ExitCode == 0 {
				t.Errorf("exit 0 for a stopped command")
			}
			msg := tail(res.Stderr)
			for _, w := range []string{"autarch sandbox:", tt.value, LimitsEnv + "=" + tt.want + "="} {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
			waitGone(t, marker)
			fewTasksLeft(t, before, procs/2)
			if tt.check != nil {
				tt.check(t)
			}
			t.Logf("%v, exit %d, host tasks %d before, %d after: %s", res.Duration.Round(time.Millisecond), res.ExitCode, before, hostTasks(), msg)
		})
	}
	leftovers(t)
}

// TestLimitsKeepRealWork runs normal commands under the default limits.
func TestLimitsKeepRealWork(t *testing.T) {
	f := newFixture(t)
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "main.go"), "package main\n\nfunc main() { println(\"built\") }\n")
	def := DefaultLimits()
	tests := []struct {
		name, command, want string
	}{
		{"go version", "go version", "go version go"},
		{"go build", "go build -o /tmp/p . && /tmp/p 2>&1", "built"},
		{"default file-size and CPU limits in force", "ulimit -Hf; ulimit -St; ulimit -Ht",
			fmt.Sprintf("%d\n%d\n%d\n", def.FileSize>>10, def.CPU/time.Second, def.CPU/time.Second+1)},
		{"limits cannot be raised", "ulimit -Hf unlimited 2>&1 || echo refused", "refused"},
		{"some parallelism", "for i in $(seq 50); do sleep 0.1 & done; wait; echo ok", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.run(t, Spec{Command: tt.command, Caches: f.sb.DefaultCaches(), Timeout: 5 * time.Minute})
			if res.ExitCode != 0 || res.Limit != "" || !strings.Contains(res.Stdout, tt.want) {
				t.Errorf("exit %d, limit %q, stdout %q (want %q), stderr %q", res.ExitCode, res.Limit, res.Stdout, tt.want, res.Stderr)
			}
		})
	}
	leftovers(t)
}

// TestSpecLimitsOnlyLower checks that a Spec cannot raise the sandbox's
// limits.
func TestSpecLimitsOnlyLower(t *testing.T) {
	f := newFixture(t)
	def := DefaultLimits()
	for _, tt := range []struct {
		name   string
		limits Limits
		want   int64
	}{
		{"higher is ignored", Limits{FileSize: 2 * def.FileSize}, def.FileSize >> 10},
		{"off is ignored", Limits{FileSize: Unlimited}, def.FileSize >> 10},
		{"lower wins", Limits{FileSize: 1 << 20}, 1 << 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := f.run(t, Spec{Command: "ulimit -Hf", Limits: tt.limits})
			if got := strings.TrimSpace(res.Stdout); got != strconv.FormatInt(tt.want, 10) {
				t.Errorf("ulimit -Hf = %q, want %d", got, tt.want)
			}
		})
	}
}

// TestUnconfinedLimits checks that the unconfined mechanism applies the
// same limits, and that its cgroup kills a child that left the process
// group.
func TestUnconfinedLimits(t *testing.T) {
	dir := t.TempDir()
	marker := fmt.Sprintf("%d", 800000+time.Now().UnixNano()%99999)
	u := Unconfined{Limits: Limits{Procs: 100}}
	res, err := u.Run(context.Background(), Spec{Dir: dir, Command: "setsid sleep " + marker + " & perl -e 'fork while 1'", Timeout: time.Minute})
	if err != nil || res.Limit != LimitProcs || !strings.Contains(res.Stderr, "100 processes") {
		t.Fatalf("want the procs limit, got %v %+v", err, res)
	}
	waitGone(t, "sleep\x00"+marker+"\x00")
	leftovers(t)
}

func TestParseLimits(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Limits
		err  string
	}{
		{"", Limits{}, ""},
		{"procs=8192,mem=16G,fsize=512M,cpu=2h", Limits{Procs: 8192, Memory: 16 << 30, FileSize: 512 << 20, CPU: 2 * time.Hour}, ""},
		{" procs = 100 , cpu=90 ", Limits{Procs: 100, CPU: 90 * time.Second}, ""},
		{"mem=off,fsize=unlimited", Limits{Memory: Unlimited, FileSize: Unlimited}, ""},
		{"mem=1GiB,fsize=1024", Limits{Memory: 1 << 30, FileSize: 1024}, ""},
		{"procs=0", Limits{}, "at least 1"},
		{"procs=lots", Limits{}, "not a number of processes"},
		{"mem=-1G", Limits{}, "not a size"},
		{"mem=1X", Limits{}, "not a size"},
		{"cpu=1ms", Limits{}, "at least 1s"},
		{"nofile=10", Limits{}, "unknown limit"},
		{"procs", Limits{}, "not key=value"},
	} {
		got, err := ParseLimits(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), LimitsEnv) {
				t.Errorf("ParseLimits(%q) = %v, want an error with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLimits(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if err == nil && tt.in != "" {
			if again, err := ParseLimits(got.withDefaults(DefaultLimits()).String()); err != nil || again != got.withDefaults(DefaultLimits()) {
				t.Errorf("String() of %+v does not parse back: %+v %v", got, again, err)
			}
		}
	}
}

// hostTasks counts the host's processes.
func hostTasks() int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	return n
}

// fewTasksLeft waits until the host has at most slack tasks more than
// before. Other work shares the host (a build's threads come and go), so
// a count above that is retried rather than failed at once; tasks a
// command left behind stay and fail it.
func fewTasksLeft(t *testing.T, before, slack int) {
	t.Helper()
	testkit.CheckFor(t, 15*time.Second, 50*time.Millisecond, func() error {
		if after := hostTasks(); after > before+slack {
			return fmt.Errorf("host tasks %d before, %d after", before, after)
		}
		return nil
	})
}

// waitGone waits until no process's command line contains s.
func waitGone(t *testing.T, s string) {
	t.Helper()
	testkit.CheckFor(t, 5*time.Second, 20*time.Millisecond, func() error {
		if pids := processesWith(s); len(pids) > 0 {
			return fmt.Errorf("%d processes survived the command", len(pids))
		}
		return nil
	})
}

// leftovers fails when a command's cgroup was not removed.
func leftovers(t *testing.T) {
	t.Helper()
	cgs := detectCgroups()
	for _, d := range []string{cgs.pids, cgs.memory} {
		if d == "" {
			continue
		}
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), fmt.Sprintf("autarch-%d-", os.Getpid())) {
				t.Errorf("cgroup %s left behind", filepath.Join(d, e.Name()))
			}
		}
	}
}

func tail(s string) string {
	if i := strings.LastIndex(strings.TrimRight(s, "\n"), "\n"); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return strings.TrimSpace(s)
}

// TestReportLimits checks that autarch doctor's report names the limits
// and the mechanism of each.
func TestReportLimits(t *testing.T) {
	newFixture(t)
	b, err := NewBwrap(context.Background(), Options{Limits: Limits{Procs: 300, CPU: Unlimited}})
	if err != nil {
		t.Fatal(err)
	}
	rep := b.Report(context.Background())
	for _, want := range []string{"limits per command:", "procs: 300 (a pids cgroup v1 per command", "mem: ", "memory cgroup v1", "fsize: 8G per file (RLIMIT_FSIZE)", "cpu: off", LimitsEnv + "="} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	none := cgroups{why: "no writable cgroup"}.mechanism(DefaultLimits())
	for _, want := range []string{"mem: NOT LIMITED (no writable cgroup", "cpu: 1h0m0s per process"} {
		if !strings.Contains(none, want) {
			t.Errorf("mechanism without cgroups lacks %q: %s", want, none)
		}
	}
}

// TestWrapperRunsNothingFromTheEnvironment checks that the host-side
// wrapper does not source BASH_ENV nor import functions: it runs outside
// the sandbox.
func TestWrapperRunsNothingFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	mustWrite(t, filepath.Join(dir, "env.sh"), "touch "+marker+"\n")
	t.Setenv("BASH_ENV", filepath.Join(dir, "env.sh"))
	t.Setenv("BASH_FUNC_exec%%", "() { touch "+marker+"; }")
	argv := wrap([]string{"/bin/true"}, DefaultLimits(), nil)
	cmd := exec.Command(argv[0], argv[1:]...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the wrapper ran code from its environment")
	}
}

// TestGateBwrapFailsEarly checks that a bwrap that fails before it makes
// a child (here a stand-in saying what a kernel without user namespaces
// makes bwrap say) still explains itself through Run.
func TestGateBwrapFailsEarly(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "bwrap")
	mustWrite(t, fake, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'bubblewrap 0.8.0'; exit 0; }\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	_, st := Detect(context.Background(), Options{Path: fake})
	if st.Available || !strings.Contains(st.Reason, "user namespaces are refused") || !strings.Contains(st.Stderr, "uid map") {
		t.Errorf("status %s", st)
	}
	leftovers(t)
}

// TestCommandAloneAppliesRlimits checks that a caller running Command
// itself (without Run, so without a cgroup) still gets the rlimits.
func TestCommandAloneAppliesRlimits(t *testing.T) {
	f := newFixture(t)
	for _, sb := range []Sandbox{f.sb, Unconfined{}} {
		cmd, err := sb.Command(context.Background(), Spec{Dir: f.dir, Command: "ulimit -Hf", Limits: Limits{FileSize: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.Output()
		if err != nil || strings.TrimSpace(string(out)) != "1024" {
			t.Errorf("%s: ulimit -Hf = %q, %v; want 1024", sb.Name(), out, err)
		}
	}
}
