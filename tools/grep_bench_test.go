package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// grepQueries are the benchmark's queries: literals and regexes.
var grepQueries = []struct {
	name, pattern string
}{
	{"literal common", "func"},
	{"literal rare", "SetFinalizer"},
	{"literal phrase", "return nil, err"},
	{"regex ident", `func \w+Context\(`},
	{"regex alternation", `(TODO|FIXME|XXX)`},
	{"regex class", `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
}

func grepCorpus(tb testing.TB) string {
	dir := os.Getenv("AUTARCH_GREP_CORPUS")
	if dir == "" {
		dir = filepath.Join(runtime.GOROOT(), "src")
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("no corpus at %s", dir)
	}
	return dir
}

// BenchmarkGrep times the grep tool's search over $(go env GOROOT)/src.
func BenchmarkGrep(b *testing.B) {
	dir := grepCorpus(b)
	root, err := workspace.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	gate := workspace.DefaultGate()
	for _, q := range grepQueries {
		b.Run(q.name, func(b *testing.B) {
			m, err := newMatcher(q.pattern, false)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Search(context.Background(), root, workspace.NewIgnore(root), gate, m, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestGrepVersusRipgrep prints the time ratio of our grep to `rg -i -c` on
// the same tree, rules and queries, checking both count the same matches.
// It runs only with AUTARCH_BENCH_RG=1 (make bench-grep): it is a
// measurement, not a test of speed.
func TestGrepVersusRipgrep(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_RG") == "" {
		t.Skip("set AUTARCH_BENCH_RG=1 to measure against ripgrep")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed")
	}
	dir := grepCorpus(t)
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	gate := workspace.DefaultGate()
	const runs = 5
	fmt.Printf("\ngrep over %s (%d runs each, best time)\n\n", dir, runs)
	fmt.Printf("| query | pattern | matches (ours / rg) | ours | rg -i -c | ratio |\n|---|---|---|---|---|---|\n")
	var sumRatio float64
	for _, q := range grepQueries {
		m, _ := newMatcher(q.pattern, false)
		var ours []GrepMatch
		best := time.Duration(1 << 62)
		for range runs {
			start := time.Now()
			ours, err = Search(context.Background(), root, workspace.NewIgnore(root), gate, m, "")
			if err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(start))
		}
		rgBest := time.Duration(1 << 62)
		rgCount := 0
		for range runs {
			cmd := exec.Command(rg, "-i", "-c", "--no-require-git", "--hidden", "--max-filesize", "10M", "--no-messages", "-e", q.pattern, ".")
			cmd.Dir = dir
			start := time.Now()
			out, _ := cmd.Output()
			rgBest = min(rgBest, time.Since(start))
			rgCount = 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if i := strings.LastIndexByte(line, ':'); i >= 0 {
					n, _ := strconv.Atoi(line[i+1:])
					rgCount += n
				}
			}
		}
		ratio := float64(best) / float64(rgBest)
		sumRatio += ratio
		fmt.Printf("| %s | `%s` | %d / %d | %s | %s | %.2f |\n", q.name, q.pattern, len(ours), rgCount, best.Round(time.Millisecond), rgBest.Round(time.Millisecond), ratio)
	}
	fmt.Printf("\nmean ratio (ours / rg): %.2f\n", sumRatio/float64(len(grepQueries)))
}
