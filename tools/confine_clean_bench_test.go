package tools

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// BenchmarkMaskWalkNewWorktree (issue 35) measures deciding a command's
// masks in a new linked worktree of a 20k-file repository: the first
// command (the filtered object store's update, git's clean blobs, one walk
// that reads no clean file) and the next (a walk that stats files).
func BenchmarkMaskWalkNewWorktree(b *testing.B) {
	ctx := context.Background()
	repo := generatedRepo(b, 20000)
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

// generatedRepo is a repository whose one commit holds n small Go files,
// a hundred a folder.
func generatedRepo(b *testing.B, n int) *git.Repo {
	b.Helper()
	top := b.TempDir()
	files := make(map[string]string, n)
	for i := range n {
		files[fmt.Sprintf("pkg%d/f%d.go", i/100, i)] = fmt.Sprintf("package pkg%d\n\nconst F%d = %d\n", i/100, i, i)
	}
	testkit.WriteFiles(b, top, files)
	testkit.Git(b, top, "init", "-q", "-b", "main")
	testkit.Git(b, top, "add", ".")
	// No background gc (20k loose objects) racing the benchmark.
	testkit.Git(b, top, "-c", "gc.auto=0", "-c", "user.name=User", "-c", "user.email=user@example.com", "commit", "-qm", "init")
	repo, err := git.Open(context.Background(), top, git.Config{})
	if err != nil {
		b.Fatal(err)
	}
	return repo
}
