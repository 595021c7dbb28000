package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
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

// TestGrepVersusRipgrep prints, for $(go env GOROOT)/src and the Go module
// cache (go env GOMODCACHE), the time of a whole `autarch tool grep`
// process per query against `rg -i -c` on the same tree: paired runs
// (ours then rg), the median of each and of the pairs' ratios. "cold" is a
// process with nothing of an earlier one (a fresh user cache, so no
// persisted gate verdicts); "kept" is a process after earlier ones (the
// gate's verdicts persisted by file version). It checks that both count
// the same matching lines outside the files the secret gate blocks (rg
// does not know the gate; a blocked file yields nothing to us). It runs
// only with AUTARCH_BENCH_RG=1 (make bench-grep): the times are a
// measurement, not a test of speed. AUTARCH_BENCH_BEFORE=<another autarch
// binary> adds its cold process to each pair (ours, before, rg), for a
// before/after table from one run. Neither side's page cache is dropped
// (a user's files are usually in it; dropping it needs root and measures
// the disk): every process reads warm files; the load average is printed
// with each row. Beside the wall times it prints each process's CPU time
// (user + system) and the ratios of those: on a busy machine a process
// waits for a core, and its CPU time says more than its wall time. Set
// AUTARCH_BENCH_QUERIES to a regular expression to run only the queries
// whose names it matches.
func TestGrepVersusRipgrep(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_RG") == "" {
		t.Skip("set AUTARCH_BENCH_RG=1 to measure against ripgrep")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed")
	}
	bin := filepath.Join(t.TempDir(), "autarch")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/autarch").CombinedOutput(); err != nil {
		t.Fatalf("building autarch: %v\n%s", err, out)
	}
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("AUTARCH_BENCH_RUNS")); err == nil && n > 0 {
		runs = n // more runs find quiet moments on a busy machine
	}
	corpora := []string{grepCorpus(t)}
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" && os.Getenv("AUTARCH_GREP_CORPUS") == "" {
			if _, err := os.Stat(dir); err == nil {
				corpora = append(corpora, dir)
			}
		}
	}
	before := os.Getenv("AUTARCH_BENCH_BEFORE")
	only := regexp.MustCompile("")
	if q := os.Getenv("AUTARCH_BENCH_QUERIES"); q != "" {
		if only, err = regexp.Compile(q); err != nil {
			t.Fatalf("AUTARCH_BENCH_QUERIES: %v", err)
		}
	}
	for _, dir := range corpora {
		grepVersusRipgrep(t, bin, before, rg, dir, runs, only)
	}
}

// exitedCPU is the CPU time (user + system) a finished process used.
func exitedCPU(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// ratio is a/b in thousandths (0 when b is 0), for median.
func ratio(a, b time.Duration) time.Duration {
	if b <= 0 {
		return 0
	}
	return a * 1000 / b
}

// grepVersusRipgrep prints the table of one corpus.
func grepVersusRipgrep(t *testing.T, bin, before, rg, dir string, runs int, only *regexp.Regexp) {
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	gate := workspace.DefaultGate()
	kept := t.TempDir() // the user cache of the "kept" processes
	fmt.Printf("\ngrep over %s: a new process per query, %d paired runs, medians; page cache warm for all (dropped for none)\n\n", dir, runs)
	fmt.Printf("| query | pattern | matching lines (ours / rg outside blocked and binary files / rg) | ours cold | ours kept | rg -i -c | ratio cold | ratio kept | before cold | ratio before | CPU ours cold / kept / rg | CPU ratio cold | CPU ratio kept | CPU ratio before | load |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var worstCold, worstKept, worstBefore, worstCPUCold, worstCPUKept float64
	for _, q := range grepQueries {
		if !only.MatchString(q.name) {
			continue
		}
		args, _ := json.Marshal(map[string]string{"pattern": q.pattern, "reason": "bench"})
		grep := func(bin, cache string) (took, cpu time.Duration, total int) {
			cmd := exec.Command(bin, "tool", "--root", dir, "grep", string(args))
			cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache)
			start := time.Now()
			out, err := cmd.Output()
			took = time.Since(start)
			var res struct {
				Total int `json:"total"`
			}
			if jerr := json.Unmarshal(out, &res); jerr != nil {
				t.Fatalf("%s: autarch tool grep: %v (%v)\n%s", q.name, err, jerr, out)
			}
			return took, exitedCPU(cmd.ProcessState), res.Total
		}
		var cold, warm, rgT, ratioCold, ratioKept, old, ratioBefore []time.Duration
		var cpuCold, cpuKept, cpuRg, cpuRatioCold, cpuRatioKept, cpuRatioBefore []time.Duration
		var total int
		var rgOut []byte
		for range runs {
			c, cc, n := grep(bin, t.TempDir())
			k, kc, _ := grep(bin, kept)
			var bc time.Duration
			if before != "" {
				var b time.Duration
				b, bc, _ = grep(before, t.TempDir())
				old = append(old, b)
			}
			cmd := exec.Command(rg, "-i", "-c", "--no-require-git", "--hidden", "--max-filesize", "10M", "--no-messages", "-e", q.pattern, ".")
			cmd.Dir = dir
			start := time.Now()
			rgOut, _ = cmd.Output()
			r := time.Since(start)
			rc := exitedCPU(cmd.ProcessState)
			cold, warm, rgT, total = append(cold, c), append(warm, k), append(rgT, r), n
			ratioCold = append(ratioCold, ratio(c, r))
			ratioKept = append(ratioKept, ratio(k, r))
			cpuCold, cpuKept, cpuRg = append(cpuCold, cc), append(cpuKept, kc), append(cpuRg, rc)
			cpuRatioCold = append(cpuRatioCold, ratio(cc, rc))
			cpuRatioKept = append(cpuRatioKept, ratio(kc, rc))
			if before != "" {
				ratioBefore = append(ratioBefore, ratio(old[len(old)-1], r))
				cpuRatioBefore = append(cpuRatioBefore, ratio(bc, rc))
			}
		}
		rgAll, rgOpen := rgCounts(t, root, gate, string(rgOut))
		if rgOpen != total {
			t.Errorf("%s: we found %d matching lines, rg %d outside the files the gate blocks and binary ones", q.name, total, rgOpen)
		}
		rc, rk := float64(median(ratioCold))/1000, float64(median(ratioKept))/1000
		worstCold, worstKept = max(worstCold, rc), max(worstKept, rk)
		cc, ck := float64(median(cpuRatioCold))/1000, float64(median(cpuRatioKept))/1000
		worstCPUCold, worstCPUKept = max(worstCPUCold, cc), max(worstCPUKept, ck)
		beforeCold, rb, cb := "-", "-", "-"
		if before != "" {
			beforeCold = median(old).Round(time.Millisecond).String()
			r := float64(median(ratioBefore)) / 1000
			rb, worstBefore = fmt.Sprintf("%.2f", r), max(worstBefore, r)
			cb = fmt.Sprintf("%.2f", float64(median(cpuRatioBefore))/1000)
		}
		fmt.Printf("| %s | `%s` | %d / %d / %d | %s | %s | %s | %.2f | %.2f | %s | %s | %s / %s / %s | %.2f | %.2f | %s | %s |\n", q.name, strings.ReplaceAll(q.pattern, "|", "\\|"), total, rgOpen, rgAll,
			median(cold).Round(time.Millisecond), median(warm).Round(time.Millisecond), median(rgT).Round(time.Millisecond), rc, rk, beforeCold, rb,
			median(cpuCold).Round(time.Millisecond), median(cpuKept).Round(time.Millisecond), median(cpuRg).Round(time.Millisecond), cc, ck, cb, loadAverage())
	}
	fmt.Printf("\nworst median ratio (ours / rg): cold %.2f, kept %.2f; of CPU time: cold %.2f, kept %.2f", worstCold, worstKept, worstCPUCold, worstCPUKept)
	if before != "" {
		fmt.Printf(", before (cold) %.2f", worstBefore)
	}
	fmt.Println()
}

// loadAverage is the 1-minute load average (/proc/loadavg), or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(data) + " ?")[0]
}

// median is the middle of ds (the upper one of an even count).
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// rgCounts sums `rg -c` output: all matching lines, and those in files the
// gate lets through and IsBinary does not call binary (rg takes a file
// with no NUL in its first block for text; grep skips one of more than
// 10% control characters, as the spec says: the module cache's
// klauspost/compress/flate/testdata/tokens.bin).
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
		if _, blocked := gate.FileBlocked(rel, data); !blocked && !workspace.IsBinary(data) {
			open += n
		}
	}
	return all, open
}
