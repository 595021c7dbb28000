package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkEgressValues compares the value matcher (an 8-byte-prefix
// table: one probe per offset, whatever the number of needles) with a
// strings.Index loop over the needles, on 400 KB of Go source with 40
// values (720 needles with their forms).
func BenchmarkEgressValues(b *testing.B) {
	var text strings.Builder
	files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	for _, f := range files {
		if text.Len() > 400_000 {
			break
		}
		data, _ := os.ReadFile(f)
		text.Write(data)
	}
	if text.Len() < 400_000 {
		b.Skip("not enough Go sources")
	}
	var vals []string
	for i := range 40 {
		vals = append(vals, fmt.Sprintf("tok%02dQx7Lm2Wp9Zr4Kd8Vn3", i))
	}
	set := newValueSet(vals, 0)
	var needles []string
	for _, v := range vals {
		needles = append(needles, valueForms(v)...)
	}
	hay := text.String()
	b.Logf("%d KB, %d values, %d needles", len(hay)/1024, len(vals), len(needles))
	b.Run("prefix-table", func(b *testing.B) {
		b.SetBytes(int64(len(hay)))
		for b.Loop() {
			set.mask(hay)
		}
	})
	b.Run("index-loop", func(b *testing.B) {
		b.SetBytes(int64(len(hay)))
		for b.Loop() {
			for _, n := range needles {
				strings.Index(hay, n)
			}
		}
	})
}

// BenchmarkEgressHarvest is what a session pays to find the secret files
// of a large tree ($(go env GOROOT)/src: about 15,000 files) and read
// their values.
func BenchmarkEgressHarvest(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	for b.Loop() {
		NewEgress(b.Context(), nil, EgressSources{Roots: []string{root}})
	}
}
