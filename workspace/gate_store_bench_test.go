package workspace

import (
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkVerdictBookkeeping is what a cold search over GOROOT/src
// (about 11k matching files) does besides scanning: a content verdict
// remembered per file version, then the store saved once.
func BenchmarkVerdictBookkeeping(b *testing.B) {
	const files = 11000
	dir := b.TempDir()
	for i := 0; b.Loop(); i++ {
		g := DefaultGate()
		g.PersistVerdicts(filepath.Join(dir, strconv.Itoa(i)))
		for f := range files {
			st := Stamp{dev: 1, ino: uint64(f + 1), size: int64(f), mtime: int64(i), ctime: int64(i)}
			g.stampMu.Lock()
			if g.stamps == nil {
				g.stamps = map[Stamp]string{}
			}
			g.stamps[st] = ""
			g.stampMu.Unlock()
			g.rememberVerdict(st, "")
		}
		if err := g.SaveVerdicts(); err != nil {
			b.Fatal(err)
		}
	}
}
