package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// BenchmarkDecisionAfterChange (redteam s10, 03, the cost) measures a mask
// decision in a 23k-file tree after what changed since the last one:
// nothing; a file written; a name made and removed again (the tree is
// stat-ed: rescan); a hard link the last walk found written through and
// removed (its other name is looked at); and, for scale, a walk of the
// whole tree. It reports the process's CPU time per decision (user and
// system): wall time follows the machine's load.
func BenchmarkDecisionAfterChange(b *testing.B) {
	dir := b.TempDir()
	files := make(map[string]string, 23000)
	for i := range 23000 {
		files[fmt.Sprintf("pkg%d/f%d.go", i/100, i)] = fmt.Sprintf("package pkg%d\n\nconst F%d = %d\n", i/100, i, i)
	}
	testkit.WriteFiles(b, dir, files)
	s, err := NewSession(SessionConfig{Root: dir, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	decide := func(b *testing.B) {
		b.Helper()
		if _, err := s.secretFiles(); err != nil {
			b.Fatal(err)
		}
	}
	decide(b)
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	n := 0
	for _, bc := range []struct {
		name   string
		before func(b *testing.B) // untimed
		change func(b *testing.B)
	}{
		{"nothing", nil, func(*testing.B) {}},
		{"written", nil, func(b *testing.B) {
			n++
			testkit.WriteFile(b, abs("pkg0/f0.go"), fmt.Sprintf("package pkg0\n\nconst F0 = %d\n", n))
		}},
		{"made-and-removed", nil, func(b *testing.B) {
			testkit.WriteFile(b, abs("pkg0/tmp.txt"), "tmp\n")
			if err := os.Remove(abs("pkg0/tmp.txt")); err != nil {
				b.Fatal(err)
			}
		}},
		{"link-removed", func(b *testing.B) {
			if err := os.Link(abs("pkg1/f100.go"), abs("pkg2/l")); err != nil {
				b.Fatal(err)
			}
			decide(b) // a new hard link: walks, and finds both names
		}, func(b *testing.B) {
			n++
			testkit.WriteFile(b, abs("pkg2/l"), fmt.Sprintf("package pkg1\n\nconst F100 = %d\n", n))
			if err := os.Remove(abs("pkg2/l")); err != nil {
				b.Fatal(err)
			}
		}},
		{"walk", nil, func(*testing.B) {
			st := s.confine.state
			st.mu.Lock()
			st.watch.close()
			st.watch = nil
			st.mu.Unlock()
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				if bc.before != nil {
					bc.before(b)
				}
				bc.change(b)
				start := processCPU()
				b.StartTimer()
				decide(b)
				b.StopTimer()
				cpu += processCPU() - start
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU() time.Duration {
	var r syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
