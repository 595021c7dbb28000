package git

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkChangedPaths (issue 35): the files a pulse changed, on a
// 20k-file repository's workflow worktree with a few changes, against the
// worktree's branch (a pulse's gates) and against an older commit.
func BenchmarkChangedPaths(b *testing.B) {
	ctx := context.Background()
	dir := bigRepo(b, 20000)
	writeFile(b, filepath.Join(dir, "pkg1", "later.go"), "package pkg1\n")
	gitT(b, dir, "add", ".")
	gitT(b, dir, "-c", "gc.auto=0", "commit", "-q", "-m", "later")
	r := openRepo(b, dir)
	wf, err := r.CreateWorkflow(ctx, "bench", "main")
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n")
	writeFile(b, filepath.Join(wf.Worktree, "new", "n.go"), "package new\n")
	for _, c := range []struct{ name, rev string }{{"branch", wf.Branch}, {"older", "main~1"}} {
		rev := c.rev
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := r.ChangedPaths(ctx, wf.Worktree, rev); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			reportMedian(b, times)
		})
	}
}
