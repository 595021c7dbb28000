package workspace

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkScanSecrets scans 100k lines of Go-like source (about 9 MB)
// for secrets, as the first read of a large file does.
func BenchmarkScanSecrets(b *testing.B) {
	var sb strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&sb, "\tif err := process(ctx, items[%d], \"value %d\"); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i, i)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		scanSecrets(data, func(int, int, string) bool { return false })
	}
}
