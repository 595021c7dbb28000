package git

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// namedJournal is a tree journal that names the paths a benchmark writes.
type namedJournal struct{ paths []string }

func (j *namedJournal) Mark() func() ([]string, bool) {
	return func() ([]string, bool) { return j.paths, true }
}

func (j *namedJournal) MarkTracked() func() ([]string, []string, []string, bool) {
	return func() ([]string, []string, []string, bool) { return j.paths, nil, nil, true }
}

// BenchmarkPulsePasses (issue 35): a pulse's gates' changed paths and its
// checkpoint on a 20k-file repository's workflow worktree where one file
// changed, passing over every tracked file (no journal) or over what the
// tree journal names.
func BenchmarkPulsePasses(b *testing.B) {
	ctx := context.Background()
	dir := bigRepo(b, 20000)
	r := openRepo(b, dir)
	for _, c := range []struct {
		name    string
		journal TreeJournal
	}{{"whole-tree", nil}, {"journal", &namedJournal{paths: []string{"pkg0/f0.go"}}}} {
		b.Run(c.name, func(b *testing.B) {
			wf, err := r.CreateWorkflow(ctx, "bench-"+c.name, "main")
			if err != nil {
				b.Fatal(err)
			}
			if c.journal != nil {
				wf.FollowChanges(c.journal)
			}
			var gates, checkpoints, gatesCPU, checkpointsCPU []time.Duration
			i := 0
			for b.Loop() {
				i++
				id := "p" + strconv.Itoa(i)
				if _, err := wf.StartPulse(ctx, id); err != nil {
					b.Fatal(err)
				}
				writeFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n// "+id+"\n")
				start, cpu := time.Now(), cpuTime()
				if _, err := wf.ChangedPaths(ctx); err != nil {
					b.Fatal(err)
				}
				gates, gatesCPU = append(gates, time.Since(start)), append(gatesCPU, cpuTime()-cpu)
				start, cpu = time.Now(), cpuTime()
				if _, err := wf.CompletePulse(ctx, id, "chore: "+id); err != nil {
					b.Fatal(err)
				}
				checkpoints, checkpointsCPU = append(checkpoints, time.Since(start)), append(checkpointsCPU, cpuTime()-cpu)
			}
			b.ReportMetric(float64(median(gates).Microseconds())/1000, "gates-ms")
			b.ReportMetric(float64(median(checkpoints).Microseconds())/1000, "checkpoint-ms")
			b.ReportMetric(float64(median(gatesCPU).Microseconds())/1000, "gates-cpu-ms")
			b.ReportMetric(float64(median(checkpointsCPU).Microseconds())/1000, "checkpoint-cpu-ms")
		})
	}
}
