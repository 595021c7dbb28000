package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRestoreAndClaim (issue 35): a workflow's worktree from the
// spent tree of the last one — restored (PrepareWorktrees) and claimed
// (CreateWorkflow) — after a workflow that changed one file; the
// workflow's preflight waits for both.
func BenchmarkRestoreAndClaim(b *testing.B) {
	for _, n := range []int{200, 23000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			r := openRepo(b, bigRepo(b, n))
			use := func(name string) {
				wf, err := r.CreateWorkflow(ctx, name, "main")
				if err != nil {
					b.Fatal(err)
				}
				writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n\n// changed\n")
				if err := r.RemoveWorkflow(ctx, name, RemoveOptions{DeleteBranch: true}); err != nil {
					b.Fatal(err)
				}
			}
			use("first")
			var restore, claim []time.Duration
			var cpu time.Duration
			b.ResetTimer()
			for i := range b.N {
				cpuStart := cpuTime()
				start := time.Now()
				if err := r.PrepareWorktrees(ctx, "w", "main", 1); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				name := "w" + strconv.Itoa(i)
				wf, err := r.CreateWorkflow(ctx, name, "main")
				if err != nil {
					b.Fatal(err)
				}
				restore, claim = append(restore, mid.Sub(start)), append(claim, time.Since(mid))
				cpu += cpuTime() - cpuStart
				b.StopTimer()
				writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n\n// changed\n")
				if err := r.RemoveWorkflow(ctx, name, RemoveOptions{DeleteBranch: true}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportMedian(b, restore)
			b.ReportMetric(float64(median(claim).Microseconds())/1000, "ms/claim")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// median is the median of d (0 when empty); d is sorted.
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// BenchmarkVerifyFresh: the restore's walk of a 23k-file tree and the
// index parse before it.
func BenchmarkVerifyFresh(b *testing.B) {
	ctx := context.Background()
	r := openRepo(b, bigRepo(b, 23000))
	wf, err := r.CreateWorkflow(ctx, "w", "main")
	if err != nil {
		b.Fatal(err)
	}
	loc, err := r.git.locate(wf.Worktree)
	if err != nil {
		b.Fatal(err)
	}
	since, _ := freshSince(loc.gitDir)
	if err := os.Remove(filepath.Join(loc.gitDir, freshMarker)); err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		defer cpuPerOp(b)()
		for b.Loop() {
			if _, err := freshIndex(filepath.Join(loc.gitDir, "index")); err != nil {
				b.Fatal(err)
			}
		}
	})
	want, err := freshIndex(filepath.Join(loc.gitDir, "index"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("walk", func(b *testing.B) {
		defer cpuPerOp(b)()
		for b.Loop() {
			if _, _, err := verifyFresh(wf.Worktree, loc.gitDir, want, since); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuPerOp reports the process's CPU time (user, system) per iteration
// when the returned func runs: wall time follows the machine's load.
func cpuPerOp(b *testing.B) func() {
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		ms := func(a, b syscall.Timeval) float64 {
			return float64(a.Nano()-b.Nano()) / 1e6
		}
		b.ReportMetric(ms(after.Utime, before.Utime)/float64(b.N), "user-ms/op")
		b.ReportMetric(ms(after.Stime, before.Stime)/float64(b.N), "sys-ms/op")
	}
}

// cpuTime is the CPU time (user and system) this process and its waited-for
// children (git) have used.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
