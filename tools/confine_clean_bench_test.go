package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace/git"
)

// BenchmarkMaskWalkNewWorktree (issue 35) measures deciding a command's
// masks in a new linked worktree of a 20k-file repository: the first
// command (the filtered object store's update, git's clean blobs, one walk
// that reads no clean file) and the next (a walk that stats files).
func BenchmarkMaskWalkNewWorktree(b *testing.B) {
	ctx := context.Background()
	top := b.TempDir()
	for i := range 20000 {
		p := filepath.Join(top, "pkg"+strconv.Itoa(i/100), "f"+strconv.Itoa(i)+".go")
		if i%100 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "package pkg%d\n\nconst F%d = %d\n", i/100, i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "gc.auto=0", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", top}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=User", "GIT_AUTHOR_EMAIL=user@example.com", "GIT_COMMITTER_NAME=User", "GIT_COMMITTER_EMAIL=user@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %s: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(ctx, top, git.Config{})
	if err != nil {
		b.Fatal(err)
	}
	var first, next []time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		wf, err := repo.CreateWorkflow(ctx, "w"+strconv.Itoa(i), "main")
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewSession(SessionConfig{Root: wf.Worktree, GitCommonDir: repo.CommonDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for _, d := range []*[]time.Duration{&first, &next} {
			start := time.Now()
			if _, err := s.commandSpec(ctx, "true", time.Minute); err != nil {
				b.Fatal(err)
			}
			*d = append(*d, time.Since(start))
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(first), "ms/first")
	b.ReportMetric(median(next), "ms/next")
}
