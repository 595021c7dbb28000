package git

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
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
			b.ResetTimer()
			for i := range b.N {
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
				b.StopTimer()
				writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n\n// changed\n")
				if err := r.RemoveWorkflow(ctx, name, RemoveOptions{DeleteBranch: true}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportMedian(b, restore)
			b.ReportMetric(float64(median(claim).Microseconds())/1000, "ms/claim")
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
