package workspace

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// goSourceSample is up to max bytes of the Go files under
// $(go env GOROOT)/src, one after another (nil when there are none).
func goSourceSample(tb testing.TB, max int) []byte {
	tb.Helper()
	var data []byte
	filepath.WalkDir(filepath.Join(runtime.GOROOT(), "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(data) >= max {
			return filepath.SkipAll
		}
		if d.IsDir() || filepath.Ext(p) != ".go" {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil {
			data = append(data, b...)
		}
		return nil
	})
	return data
}

// BenchmarkKeywordPass is the gate's keyword pass over real Go source
// (the first 16 MB of GOROOT's .go files): the automaton's hits, without
// the rules the hits send lines to.
func BenchmarkKeywordPass(b *testing.B) {
	data := goSourceSample(b, 16<<20)
	if len(data) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	a := secretRules().kw
	var found [lanes][]kwHit
	var hits []kwHit
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		hits = a.lanesHits(hits[:0], data, &found)
	}
}

// BenchmarkScanSecretsGoSource is scanSecrets (keyword pass, guards and
// rules) over the same real Go source, file by file as a search meets it.
func BenchmarkScanSecretsGoSource(b *testing.B) {
	data := goSourceSample(b, 16<<20)
	if len(data) == 0 {
		b.Skip("no Go sources under GOROOT")
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		scanSecrets(data, func(int, int, string) bool { return true })
	}
}
