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
	{"nested alternation", `(get|set)(Deadline|Timeout)|Read(From|At)`},
	{"anchored", `^\s*defer\s+\w+\.Unlock\(\)$`},
	{"case-folded Unicode", `όσμε|ΙΙ|é`},
	{"class no literal", `[A-Z][a-z]+[0-9]{3,}`},
	{"word boundary", `\bmutex\b`},
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
// the same tree, rules and queries (runs interleaved, best of each), and
// checks that both count the same matching lines outside the files the
// secret gate blocks (rg does not know the gate; a blocked file yields
// nothing to us). It runs only with AUTARCH_BENCH_RG=1 (make bench-grep):
// the times are a measurement, not a test of speed.
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
	runs := 5
	if n, err := strconv.Atoi(os.Getenv("AUTARCH_BENCH_RUNS")); err == nil && n > 0 {
		runs = n // more runs find quiet moments on a busy machine
	}
	fmt.Printf("\ngrep over %s (%d runs each, interleaved, best time)\n\n", dir, runs)
	fmt.Printf("| query | pattern | matching lines (ours / rg outside blocked files / rg) | ours | rg -i -c | ratio |\n|---|---|---|---|---|---|\n")
	var sumRatio, maxRatio float64
	for _, q := range grepQueries {
		m, err := newMatcher(q.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		var ours []GrepMatch
		var rgOut []byte
		best, rgBest := time.Duration(1<<62), time.Duration(1<<62)
		for range runs {
			start := time.Now()
			ours, err = Search(context.Background(), root, workspace.NewIgnore(root), gate, m, "")
			if err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(start))
			cmd := exec.Command(rg, "-i", "-c", "--no-require-git", "--hidden", "--max-filesize", "10M", "--no-messages", "-e", q.pattern, ".")
			cmd.Dir = dir
			start = time.Now()
			rgOut, _ = cmd.Output()
			rgBest = min(rgBest, time.Since(start))
		}
		rgAll, rgOpen := rgCounts(t, root, gate, string(rgOut))
		if rgOpen != len(ours) {
			t.Errorf("%s: we found %d matching lines, rg %d outside the files the gate blocks", q.name, len(ours), rgOpen)
		}
		ratio := float64(best) / float64(rgBest)
		sumRatio += ratio
		maxRatio = max(maxRatio, ratio)
		fmt.Printf("| %s | `%s` | %d / %d / %d | %s | %s | %.2f |\n", q.name, strings.ReplaceAll(q.pattern, "|", "\\|"), len(ours), rgOpen, rgAll, best.Round(time.Millisecond), rgBest.Round(time.Millisecond), ratio)
	}
	fmt.Printf("\nmean ratio (ours / rg): %.2f, worst %.2f\n", sumRatio/float64(len(grepQueries)), maxRatio)
}

// rgCounts sums `rg -c` output: all matching lines, and those in files the
// gate lets through.
func rgCounts(t *testing.T, root *workspace.Root, gate *workspace.Gate, out string) (all, open int) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		i := strings.LastIndexByte(line, ':')
		if i < 0 {
			continue
		}
		n, err := strconv.Atoi(line[i+1:])
		if err != nil {
			t.Fatalf("rg output %q: %v", line, err)
		}
		all += n
		rel := strings.TrimPrefix(line[:i], "./")
		data, err := root.ReadFile(rel)
		if err != nil {
			t.Fatalf("reading %s: %v", rel, err)
		}
		if _, blocked := gate.FileBlocked(rel, data); !blocked {
			open += n
		}
	}
	return all, open
}
