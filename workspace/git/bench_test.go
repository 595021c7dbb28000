package git

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bigRepo makes a repository with n committed files in 100-file directories.
func bigRepo(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "big")
	gitT(b, b.TempDir(), "init", "-q", "-b", "main", dir)
	for i := range n {
		p := filepath.Join(dir, "pkg"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".go")
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		content := fmt.Sprintf("package pkg%d\n\n// F%d is generated.\nfunc F%d() int { return %d }\n", i/100, i, i, i)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	gitT(b, dir, "add", ".")
	// No background gc (20k loose objects trigger one) racing the
	// benchmark and TempDir's cleanup.
	gitT(b, dir, "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-m", "generated")
	return dir
}

// reportMedian reports the median of the per-iteration durations.
func reportMedian(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "ms/median")
}

// BenchmarkCreateWorkflow: branch + linked worktree checkout.
func BenchmarkCreateWorkflow(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			r := openRepo(b, bigRepo(b, n))
			var times []time.Duration
			b.ResetTimer()
			for i := range b.N {
				name := "w" + strconv.Itoa(i)
				start := time.Now()
				if _, err := r.CreateWorkflow(ctx, name, "main"); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				b.StopTimer()
				if err := r.RemoveWorkflow(ctx, name, RemoveOptions{DeleteBranch: true}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportMedian(b, times)
		})
	}
}

// BenchmarkPulseTurnaround: from "complete pulse" to the next pulse ready —
// stage, commit, fast-forward, delete the pulse branch, reset the worktree,
// diff stats, then create and enter the next pulse branch.
func BenchmarkPulseTurnaround(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			r := openRepo(b, bigRepo(b, n))
			wf, err := r.CreateWorkflow(ctx, "bench", "main")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := wf.StartPulse(ctx, "p0"); err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer()
				writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), fmt.Sprintf("package pkg0\n\n// F0 changed %d times.\nfunc F0() int { return %d }\n", i, i))
				writeFile(b, filepath.Join(wf.Worktree, "new", "n"+strconv.Itoa(i)+".go"), "package new\n")
				b.StartTimer()
				start := time.Now()
				if _, err := wf.CompletePulse(ctx, "p"+strconv.Itoa(i), "feat(bench): pulse "+strconv.Itoa(i)); err != nil {
					b.Fatal(err)
				}
				if _, err := wf.StartPulse(ctx, "p"+strconv.Itoa(i+1)); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			reportMedian(b, times)
		})
	}
}

// BenchmarkStatus: the worktree's status (what get_repo_state and the
// workflow's checks read) with a few changes and untracked files.
func BenchmarkStatus(b *testing.B) {
	ctx := context.Background()
	r := openRepo(b, bigRepo(b, 20000))
	wf, err := r.CreateWorkflow(ctx, "bench", "main")
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n")
	writeFile(b, filepath.Join(wf.Worktree, "new", "n.go"), "package new\n")
	var times []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if _, err := wf.Status(ctx); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	reportMedian(b, times)
}

// TestPulseStartBig measures pulse start on a big repository (issue 35:
// 45k files, four copies of $(go env GOROOT)/src in one repository, or
// the repository AUTARCH_BENCH_PULSE_REPO names; `make bench-pulse-start`):
// worktrees prepared ahead (in the background, while a workflow's
// scoping, research and plan run), the workflow's worktree ready from a
// prepared one, its first pulse, the second pulse after a completed one, a
// parallel pulse's worktree from a prepared one, and, for comparison, a
// parallel pulse's worktree checked out the ordinary way. It runs only
// with AUTARCH_BENCH_PULSE=1: the times are a measurement, not a test.
func TestPulseStartBig(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_PULSE") == "" {
		t.Skip("set AUTARCH_BENCH_PULSE=1 to measure pulse start on a 45k-file repository")
	}
	ctx := context.Background()
	dir := os.Getenv("AUTARCH_BENCH_PULSE_REPO")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "big")
		gitT(t, t.TempDir(), "init", "-q", "-b", "main", dir)
		src := filepath.Join(runtime.GOROOT(), "src")
		for i := range 4 {
			if out, err := exec.Command("cp", "-r", src, filepath.Join(dir, "copy"+strconv.Itoa(i))).CombinedOutput(); err != nil {
				t.Fatalf("copying %s: %v\n%s", src, err, out)
			}
		}
		gitT(t, dir, "add", ".")
		gitT(t, dir, "-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "-m", "four copies of GOROOT/src")
	}
	files := strings.Count(gitT(t, dir, "ls-files", "-z"), "\x00")
	r := openRepo(t, dir)
	name := "bench" + strconv.FormatInt(time.Now().UnixNano()%1e6, 10)
	timed := func(what string, fn func() error) time.Duration {
		start := time.Now()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return time.Since(start)
	}
	var wf *Workflow
	rows := [][2]string{}
	add := func(what string, d time.Duration) {
		rows = append(rows, [2]string{what, d.Round(time.Millisecond).String() + " (load " + loadAvg() + ")"})
	}
	add("prepare 2 worktrees ahead (background)", timed("prepare", func() error { return r.PrepareWorktrees(ctx, "bench", "main", 2) }))
	add("create workflow: worktree ready (prepared)", timed("create workflow", func() (err error) {
		wf, err = r.CreateWorkflow(ctx, name, "main")
		return err
	}))
	defer r.RemoveWorkflow(context.Background(), name, RemoveOptions{DeleteBranch: true, DeletePulseBranches: true})
	add("first pulse start", timed("start pulse", func() error { _, err := wf.StartPulse(ctx, "p1"); return err }))
	writeFile(t, filepath.Join(wf.Worktree, "copy0", "bench_pulse.go"), "package src\n")
	add("complete pulse + second pulse start", timed("second pulse", func() error {
		if _, err := wf.CompletePulse(ctx, "p1", "feat(bench): pulse 1"); err != nil {
			return err
		}
		_, err := wf.StartPulse(ctx, "p2")
		return err
	}))
	add("status of the worktree", timed("status", func() error { _, err := wf.Status(ctx); return err }))
	add("parallel pulse worktree (prepared, at an older commit)", timed("open pulse tree", func() error { _, err := wf.OpenPulseTree(ctx, "q1"); return err }))
	add("parallel pulse worktree (none prepared: checkout)", timed("open pulse tree", func() error { _, err := wf.OpenPulseTree(ctx, "q2"); return err }))
	fmt.Printf("\npulse start on %s (%d files)\n\n| step | time |\n|---|---|\n", dir, files)
	for _, row := range rows {
		fmt.Printf("| %s | %s |\n", row[0], row[1])
	}
}

// loadAvg is the machine's one-minute load average ("?" when unknown).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
