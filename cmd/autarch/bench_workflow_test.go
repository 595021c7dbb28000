package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/autarch-dev/autarch/agent/scripted"
)

// TestWorkflowAtScale runs the same scripted two-pulse workflow (`autarch
// run --yes`, a whole process) on a 3-file Go module and on that module
// at the top of a 23k-file repository (two copies of $(go env GOROOT)/src,
// nested modules, so `go build ./...` and the tests are identical), paired
// and interleaved, and prints the medians and their ratio (issue 35: within
// 1.5×). AUTARCH_BENCH_WORKFLOW_COPIES sets the number of copies (2),
// AUTARCH_BENCH_RUNS the pairs (3). It runs only with
// AUTARCH_BENCH_WORKFLOW=1 (make bench-workflow): the times are a
// measurement, not a test. With AUTARCH_BENCH_PROFILE=dir, the last big
// run writes its CPU profile (dir/cpu.pprof) and git's performance trace
// (dir/git-trace2, GIT_TRACE2_EVENT, set by a git wrapper on PATH since
// Autarch strips GIT_* from its git processes) there, to see where its time goes.
func TestWorkflowAtScale(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_WORKFLOW") == "" {
		t.Skip("set AUTARCH_BENCH_WORKFLOW=1 to compare a workflow on a small and a big repository")
	}
	bin := buildBinary(t)
	runs, copies := 3, 2
	if n, err := strconv.Atoi(os.Getenv("AUTARCH_BENCH_RUNS")); err == nil && n > 0 {
		runs = n
	}
	if n, err := strconv.Atoi(os.Getenv("AUTARCH_BENCH_WORKFLOW_COPIES")); err == nil && n >= 0 {
		copies = n
	}
	small, steps := scriptedRepo(t, "testdata/run-two-pulses.txt")
	big, _ := scriptedRepo(t, "testdata/run-two-pulses.txt")
	src := filepath.Join(runtime.GOROOT(), "src")
	for i := range copies {
		if out, err := exec.Command("cp", "-r", src, filepath.Join(big, "copy"+strconv.Itoa(i))).CombinedOutput(); err != nil {
			t.Fatalf("copying %s: %v\n%s", src, err, out)
		}
	}
	gitCmd(t, big, "add", "-A")
	gitCmd(t, big, "-c", "user.name=U", "-c", "user.email=u@example.com", "-c", "gc.auto=0", "commit", "-q", "-m", "copies of GOROOT/src")
	files := func(dir string) int { return strings.Count(gitCmd(t, dir, "ls-files", "-z"), "\x00") }
	timelines := map[string]string{}
	profile := os.Getenv("AUTARCH_BENCH_PROFILE")
	if profile != "" {
		var err error
		if profile, err = filepath.Abs(profile); err != nil { // the git wrapper runs in other folders
			t.Fatal(err)
		}
	}
	cpus := map[string][]cpuTimes{}
	run := func(bin, dir, name string, last bool) (time.Duration, cpuTimes) {
		url, _ := scripted.Start(t, steps("", ""))
		var stdout bytes.Buffer
		start := time.Now()
		stderr := &timeline{start: start}
		cmd := autarchCmd(context.Background(), bin, dir, url, "run", "--yes", "--name", name, "Add Sub and Mul to calc")
		cmd.Stdout, cmd.Stderr = &stdout, stderr
		if profile != "" && last && dir == big {
			os.Remove(filepath.Join(profile, "git-trace2"))
			os.Remove(filepath.Join(profile, "git-cpu"))
			// Autarch strips GIT_* from its git processes: a git on PATH
			// (outside the tree) sets GIT_TRACE2_EVENT for each one.
			wrap := filepath.Join(profile, "gitwrap")
			real, err := exec.LookPath("git")
			if err != nil {
				t.Fatal(err)
			}
			// With /usr/bin/time, each git's CPU time too (dir/git-cpu:
			// user, system, elapsed seconds and its arguments).
			quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
			run := "exec " + quote(real)
			if _, err := os.Stat("/usr/bin/time"); err == nil {
				run = "exec /usr/bin/time -a -o " + quote(filepath.Join(profile, "git-cpu")) + " -f '%U %S %e %C' " + quote(real)
			}
			script := "#!/bin/sh\nGIT_TRACE2_EVENT=" + quote(filepath.Join(profile, "git-trace2")) + " " + run + " \"$@\"\n"
			if err := os.MkdirAll(wrap, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(wrap, "git"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(cmd.Env, cpuProfileEnv+"="+filepath.Join(profile, "cpu.pprof"), "PATH="+wrap+string(filepath.ListSeparator)+os.Getenv("PATH"))
		}
		cpu, err := runMeasured(cmd)
		took := time.Since(start)
		timelines[bin+" "+dir] = stderr.String()
		if err != nil || !strings.Contains(stdout.String(), "done\tCompleted") {
			t.Fatalf("autarch run in %s: %v\nstdout: %s\nstderr: %s", dir, err, stdout.String(), stderr.String())
		}
		return took, cpu
	}
	builds := [][2]string{{"this build", bin}}
	if before := os.Getenv("AUTARCH_BENCH_BEFORE"); before != "" {
		builds = append([][2]string{{"before", before}}, builds...)
	}
	times := map[string][]time.Duration{}
	var loads []string
	for i := range runs {
		for j, b := range builds {
			for _, repo := range [][2]string{{"small", small}, {"big", big}} {
				d, cpu := run(b[1], repo[1], fmt.Sprintf("calc-%d-%d", i, j), i == runs-1 && j == len(builds)-1)
				times[b[0]+" "+repo[0]] = append(times[b[0]+" "+repo[0]], d)
				cpus[b[0]+" "+repo[0]] = append(cpus[b[0]+" "+repo[0]], cpu)
			}
		}
		loads = append(loads, loadAverage())
	}
	med := func(k string) time.Duration {
		d := slices.Clone(times[k])
		slices.Sort(d)
		return d[len(d)/2]
	}
	fmt.Printf("\nthe same two-pulse workflow, whole process, %d interleaved rounds (load %s)\n\n| build | module alone (%d files) | in a big repository (%d files) | ratio |\n|---|---|---|---|\n",
		runs, strings.Join(loads, ", "), files(small), files(big))
	for _, b := range builds {
		ms, mb := med(b[0]+" small"), med(b[0]+" big")
		fmt.Printf("| %s | %s %v | %s %v | %.2f |\n", b[0], ms.Round(10*time.Millisecond), times[b[0]+" small"], mb.Round(10*time.Millisecond), times[b[0]+" big"], float64(mb)/float64(ms))
	}
	// CPU time does not depend on the machine's load as wall time does:
	// the autarch process's own (user+sys) and with everything it ran
	// (git, go, the gates), medians over the rounds.
	medCPU := func(k string, f func(cpuTimes) time.Duration) time.Duration {
		var d []time.Duration
		for _, c := range cpus[k] {
			d = append(d, f(c))
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	self := func(c cpuTimes) time.Duration { return c.self }
	tree := func(c cpuTimes) time.Duration { return c.tree }
	fmt.Printf("\nCPU time (user+sys), medians: the autarch process alone / with its children\n\n| build | module alone | in a big repository | ratio (own) |\n|---|---|---|---|\n")
	for _, b := range builds {
		ss, sb := medCPU(b[0]+" small", self), medCPU(b[0]+" big", self)
		fmt.Printf("| %s | %v / %v | %v / %v | %.2f |\n", b[0], ss.Round(10*time.Millisecond), medCPU(b[0]+" small", tree).Round(10*time.Millisecond),
			sb.Round(10*time.Millisecond), medCPU(b[0]+" big", tree).Round(10*time.Millisecond), float64(sb)/float64(max(ss, 1)))
	}
	// Where the time goes: each build's last run's progress lines, each
	// with the seconds since the process started.
	for _, b := range builds {
		fmt.Printf("\n%s, the last run's log, seconds since start, module alone:\n%s\nin the big repository:\n%s", b[0], timelines[b[1]+" "+small], timelines[b[1]+" "+big])
	}
	if profile != "" {
		printGitCalls(filepath.Join(profile, "git-cpu"))
	}
}

// printGitCalls sums the git processes of the profiled run by command
// (their CPU time and wall time, from /usr/bin/time's lines in file).
func printGitCalls(file string) {
	data, err := os.ReadFile(file)
	if err != nil {
		return
	}
	type sum struct {
		n        int
		cpu, all float64
	}
	sums := map[string]*sum{}
	var total sum
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue // time's notes (a command's exit status)
		}
		u, err1 := strconv.ParseFloat(f[0], 64)
		s, err2 := strconv.ParseFloat(f[1], 64)
		e, err3 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		name := ""
		for i := 4; i < len(f); i++ { // f[3] is git itself
			switch {
			case f[i] == "-c" || f[i] == "-C":
				i++
			case strings.HasPrefix(f[i], "-"):
			default:
				name = f[i]
			}
			if name != "" {
				break
			}
		}
		if sums[name] == nil {
			sums[name] = &sum{}
		}
		sums[name].n++
		sums[name].cpu += u + s
		sums[name].all += e
		total.n++
		total.cpu += u + s
		total.all += e
	}
	names := slices.Collect(maps.Keys(sums))
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(sums[b].cpu, sums[a].cpu) })
	fmt.Printf("\nthe profiled run's git processes (/usr/bin/time: CPU user+sys, wall), by command\n\n| command | calls | CPU s | wall s |\n|---|---|---|---|\n")
	for _, n := range names {
		fmt.Printf("| %s | %d | %.2f | %.2f |\n", n, sums[n].n, sums[n].cpu, sums[n].all)
	}
	fmt.Printf("| all | %d | %.2f | %.2f |\n", total.n, total.cpu, total.all)
}

// cpuTimes is the CPU time (user+sys) of a process: its own (self) and
// with the children it waited for (tree).
type cpuTimes struct{ self, tree time.Duration }

// runMeasured runs cmd and returns its CPU times. The process's own time
// is read from /proc while it is a zombie (waitid with WNOWAIT), before
// cmd.Wait reaps it; the tree's is the rusage wait returns.
func runMeasured(cmd *exec.Cmd) (cpuTimes, error) {
	if err := cmd.Start(); err != nil {
		return cpuTimes{}, err
	}
	var c cpuTimes
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err == nil {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid)); err == nil {
			// Fields after the command's closing parenthesis: state is
			// the 3rd field of stat, utime and stime the 14th and 15th.
			f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
			if len(f) > 12 {
				u, _ := strconv.ParseInt(f[11], 10, 64)
				s, _ := strconv.ParseInt(f[12], 10, 64)
				c.self = time.Duration(u+s) * time.Second / 100 // USER_HZ
			}
		}
	}
	err := cmd.Wait()
	if cmd.ProcessState != nil {
		c.tree = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return c, err
}

// timeline is a run's stderr with each line prefixed by the seconds since
// start.
type timeline struct {
	start   time.Time
	mu      sync.Mutex
	out     strings.Builder
	partial bool
}

func (tl *timeline) Write(p []byte) (int, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	stamp := fmt.Sprintf("%7.3f  ", time.Since(tl.start).Seconds())
	for _, line := range strings.SplitAfter(string(p), "\n") {
		if line == "" {
			continue
		}
		if !tl.partial {
			tl.out.WriteString(stamp)
		}
		tl.out.WriteString(line)
		tl.partial = !strings.HasSuffix(line, "\n")
	}
	return len(p), nil
}

func (tl *timeline) String() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.out.String()
}

// loadAverage is the one-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
