package git

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkIndexReads (issue 35): the reads of one version of a
// 23k-entry index that a checkpoint and the untracked listing make (its
// identity, its gitlinks twice): each a parse of its own, as before, or
// the shared digest.
func BenchmarkIndexReads(b *testing.B) {
	dir := b.TempDir()
	gitT(b, dir, "init", "-q")
	blob := gitT(b, dir, "hash-object", "-w", "--stdin")
	var info strings.Builder
	for i := range 23000 {
		fmt.Fprintf(&info, "100644 %s\tpkg%d/f%d.go\n", blob, i/100, i)
	}
	cmd := exec.Command("git", "-C", dir, "update-index", "--index-info")
	cmd.Stdin = strings.NewReader(info.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("update-index: %v\n%s", err, out)
	}
	index := filepath.Join(dir, ".git", "index")
	b.Run("parse-each", func(b *testing.B) {
		defer cpuPerOp(b)()
		for b.Loop() {
			if indexPaths(index) == "" {
				b.Fatal("not parsed")
			}
			for range 2 {
				var links []string
				if !readIndex(index, func(e *indexEntry) {
					if e.mode == 0o160000 {
						links = append(links, e.path)
					}
				}) {
					b.Fatal("not parsed")
				}
			}
		}
	})
	b.Run("digest", func(b *testing.B) {
		r := openRepo(b, dir)
		defer cpuPerOp(b)()
		for b.Loop() {
			r.indexes = &indexDigests{} // a new version each time
			for range 3 {
				if _, ok := r.indexDigest(index); !ok {
					b.Fatal("not parsed")
				}
			}
		}
	})
}
