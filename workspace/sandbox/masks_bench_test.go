package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// maskCounts are the numbers of masked files BenchmarkMasks measures: the
// big repository of `make bench-workflow` masks 98 files by content.
var maskCounts = []int{0, 25, 100, 200}

// maskedFiles writes n files spread over 20 folders of dir and returns
// their paths relative to dir.
func maskedFiles(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	var out []string
	for i := range n {
		rel := filepath.Join(fmt.Sprintf("pkg%02d", i%20), fmt.Sprintf("key%03d.pem", i))
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("-----BEGIN PRIVATE KEY----- mask-bench\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		out = append(out, rel)
	}
	return out
}

// maskSpecs returns, per count of maskCounts, the spec of `true` in a
// linked worktree confined as tools confine a session's commands, with
// that many masked files on top.
func maskSpecs(tb testing.TB) []Spec {
	tb.Helper()
	var out []Spec
	for _, n := range maskCounts {
		spec, _ := benchWorktree(tb, "true", nil)
		spec.Masked = append(spec.Masked, maskedFiles(tb, spec.Dir, n)...)
		out = append(out, spec)
	}
	return out
}

// BenchmarkMasks measures one sandboxed `true` in a linked worktree with
// 0, 25, 100 and 200 masked files (go test -bench Masks -run '^$').
func BenchmarkMasks(b *testing.B) {
	sb, st := Detect(context.Background(), Options{})
	if sb == nil {
		b.Fatalf("no sandbox: %s", st)
	}
	for i, spec := range maskSpecs(b) {
		b.Run(fmt.Sprintf("masks=%d", maskCounts[i]), func(b *testing.B) {
			for b.Loop() {
				res, err := sb.Run(context.Background(), spec)
				if err != nil || res.ExitCode != 0 {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// TestMasksTable prints the best and median wall time of a sandboxed
// `true` per number of masked files, with every mask made by bwrap and as
// the sandbox chooses (the helper from maskHelperMin files on),
// interleaved, when AUTARCH_SANDBOX_BENCH is set.
func TestMasksTable(t *testing.T) {
	if os.Getenv("AUTARCH_SANDBOX_BENCH") == "" {
		t.Skip("set AUTARCH_SANDBOX_BENCH=1 to measure the cost of masks")
	}
	const runs = 15
	sb, st := Detect(context.Background(), Options{})
	if sb == nil {
		t.Fatalf("no sandbox: %s", st)
	}
	specs := maskSpecs(t)
	modes := []struct {
		name string
		mode helperMode
	}{{"bwrap makes every mask", helperNever}, {"as chosen (the helper)", helperAuto}}
	ds := make([][][]time.Duration, len(modes))
	for m := range modes {
		ds[m] = make([][]time.Duration, len(specs))
	}
	for range runs {
		for i, spec := range specs {
			for m, mode := range modes {
				spec.helper = mode.mode
				start := time.Now()
				res, err := sb.Run(context.Background(), spec)
				if err != nil || res.ExitCode != 0 {
					t.Fatalf("%v %+v", err, res)
				}
				ds[m][i] = append(ds[m][i], time.Since(start))
			}
		}
	}
	var out strings.Builder
	out.WriteString("| masks |")
	for _, n := range maskCounts {
		fmt.Fprintf(&out, " %d |", n)
	}
	out.WriteString("\n|---|" + strings.Repeat("---|", len(maskCounts)) + "\n")
	for m, mode := range modes {
		fmt.Fprintf(&out, "| %s, best |", mode.name)
		for _, d := range ds[m] {
			fmt.Fprintf(&out, " %v |", slices.Min(d).Round(100*time.Microsecond))
		}
		fmt.Fprintf(&out, "\n| %s, median |", mode.name)
		for _, d := range ds[m] {
			slices.Sort(d)
			fmt.Fprintf(&out, " %v |", d[len(d)/2].Round(100*time.Microsecond))
		}
		out.WriteString("\n")
	}
	t.Logf("%s, %d runs, interleaved:\n%s", sb.Name(), runs, out.String())
}
