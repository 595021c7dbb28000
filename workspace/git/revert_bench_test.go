package git

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkRevertPulses: undo pulses 2 and 3 of a 3-pulse workflow (two
// revert commits, the branch moved once, the worktree put at rest), in a
// small repository and in one of 20,000 files. Each iteration reverts the
// two newest commits of the branch (the previous iteration's reverts, from
// the second on), so the workflow is made once.
func BenchmarkRevertPulses(b *testing.B) {
	for _, n := range []int{0, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			var wf *Workflow
			if n == 0 {
				_, wf, _ = threePulses(b)
			} else {
				r := openRepo(b, bigRepo(b, n))
				var err error
				if wf, err = r.CreateWorkflow(ctx, "undo", "main"); err != nil {
					b.Fatal(err)
				}
				for i, id := range []string{"p1", "p2", "p3"} {
					if _, err := wf.StartPulse(ctx, id); err != nil {
						b.Fatal(err)
					}
					writeFile(b, filepath.Join(wf.Worktree, "pkg1", fmt.Sprintf("new%d.go", i)), "package pkg1\n")
					if _, err := wf.CompletePulse(ctx, id, "feat: pulse "+id); err != nil {
						b.Fatal(err)
					}
				}
			}
			var times []time.Duration
			b.ResetTimer()
			for range b.N {
				head, err := wf.Head(ctx)
				if err != nil {
					b.Fatal(err)
				}
				newest := strings.Fields(gitT(b, wf.Worktree, "rev-list", "--first-parent", "-2", head))
				start := time.Now()
				if _, err := wf.Revert(ctx, newest, nil, RevertOptions{Since: head}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			reportMedian(b, times)
		})
	}
}
