package workspace

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// goSourceFiles are Go files under $(go env GOROOT)/src, up to max bytes
// in all (none when there are none).
func goSourceFiles(tb testing.TB, max int) [][]byte {
	tb.Helper()
	var files [][]byte
	n := 0
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= max {
			return filepath.SkipAll
		}
		if d.IsDir() || filepath.Ext(p) != ".go" {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			files, n = append(files, b), n+len(b)
		}
		return nil
	})
	return files
}

// goSourceSample is goSourceFiles one after another.
func goSourceSample(tb testing.TB, max int) []byte {
	tb.Helper()
	return bytes.Join(goSourceFiles(tb, max), nil)
}

// BenchmarkKeywordPass is the gate's keyword pass over real Go source
// (the first 16 MB of GOROOT's .go files): the automaton's hits, without
// the rules the hits send lines to.
func BenchmarkKeywordPass(b *testing.B) { benchKeywordPass(b, kwStepsFast) }

// BenchmarkKeywordPassPortable is BenchmarkKeywordPass with the portable
// stepper (what a CPU without the assembly runs).
func BenchmarkKeywordPassPortable(b *testing.B) { benchKeywordPass(b, kwStepsGo) }

// benchKeywordPass is BenchmarkKeywordPass with the stepper given.
func benchKeywordPass(b *testing.B, steps kwStepper) {
	data := goSourceSample(b, 16<<20)
	if len(data) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	a := secretRules().kw
	var found [lanes][]kwHit
	var hits []kwHit
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		hits = a.lanesHitsWith(hits[:0], data, &found, steps)
	}
}

// BenchmarkScanSecretsGoSource is scanSecrets (keyword pass, guards and
// rules) over the same real Go source, file by file as a search meets it.
func BenchmarkScanSecretsGoSource(b *testing.B) {
	files := goSourceFiles(b, 16<<20)
	if len(files) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	n := 0
	for _, f := range files {
		n += len(f)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, f := range files {
			scanSecrets(f, func(int, int, string) bool { return true })
		}
	}
}

// BenchmarkScanSecretsModCache is BenchmarkScanSecretsGoSource over the
// Go files of the module cache (the first 64 MB), the other corpus of
// make bench-grep: more generated code, long lines and credentials'
// names than GOROOT.
func BenchmarkScanSecretsModCache(b *testing.B) {
	files, n := modCacheGoFiles(b, 64<<20)
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, f := range files {
			scanSecrets(f, func(int, int, string) bool { return true })
		}
	}
}

// BenchmarkScanSecretsModCacheCold is BenchmarkScanSecretsModCache with
// a new rule set each round, as a new process has: the rules' DFAs
// start empty and build their states on the lines that reach them.
func BenchmarkScanSecretsModCacheCold(b *testing.B) {
	files, n := modCacheGoFiles(b, 64<<20)
	b.SetBytes(int64(n))
	for b.Loop() {
		rs := compileRules(localRules, gitleaksRules, keywordGuards)
		for _, f := range files {
			rs.scan(f, func(int, int, string) bool { return true })
		}
	}
}

// modCacheGoFiles are the Go files of the module cache, up to max bytes
// in all, and their size (the benchmark is skipped without any).
func modCacheGoFiles(b *testing.B, max int) ([][]byte, int) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	root := strings.TrimSpace(string(out))
	if err != nil || root == "" {
		b.Skip("no module cache")
	}
	var files [][]byte
	n := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n >= max {
			return filepath.SkipAll
		}
		if d.IsDir() || filepath.Ext(p) != ".go" {
			return nil
		}
		if data, err := os.ReadFile(p); err == nil {
			files, n = append(files, data), n+len(data)
		}
		return nil
	})
	if len(files) == 0 {
		b.Skip("no Go files in the module cache")
	}
	return files, n
}

// BenchmarkCompileRules is what each process pays once for the rules: the
// keyword automaton and each rule's guard, need and window (the regexps
// themselves compile lazily). A CLI call pays it on its start-up; a cold
// search's first content verdict waits for it.
func BenchmarkCompileRules(b *testing.B) {
	for b.Loop() {
		compileRules(localRules, gitleaksRules, keywordGuards)
	}
}
