package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
