package verify

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkScanGoTree scans GOROOT/src (cgo and assembly: the digest of
// every file's stamps) and this repository (pure Go: the walk and the
// reading of its .go files only).
func BenchmarkScanGoTree(b *testing.B) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, root string }{
		{"goroot-src", filepath.Join(runtime.GOROOT(), "src")},
		{"repo", repo},
	} {
		if _, err := os.Stat(bc.root); err != nil {
			b.Skip(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			var g goTree
			for b.Loop() {
				g = scanGoTree(context.Background(), bc.root, ".")
			}
			b.ReportMetric(float64(len(g.digest)), "digest-chars")
		})
	}
}
