package git

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseIndex: no index file, however damaged, makes the parser panic
// or read past its data, and what it accepts it accepts the same way
// twice (the layout check and the walk agree).
func FuzzParseIndex(f *testing.F) {
	for _, version := range []string{"2", "3", "4"} {
		dir := f.TempDir()
		gitT(f, dir, "init", "-q")
		for _, p := range []string{"a.go", "pkg/b.go", "pkg/deep/c.go"} {
			writeFile(f, filepath.Join(dir, p), p+"\n")
		}
		gitT(f, dir, "add", ".")
		if version == "3" {
			writeFile(f, filepath.Join(dir, "later.txt"), "x\n")
			gitT(f, dir, "add", "-N", "later.txt")
		} else {
			gitT(f, dir, "update-index", "--index-version", version)
		}
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("DIRC\x00\x00\x00\x04\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, hashLen := range []int{20, 32} {
			var paths []string
			ok := parseIndex(data, hashLen, func(e *indexEntry) { paths = append(paths, e.path) })
			if parseIndex(data, hashLen, nil) != ok {
				t.Fatalf("hash length %d: the check and the walk disagree", hashLen)
			}
			if !ok {
				continue
			}
			var again []string
			parseIndex(data, hashLen, func(e *indexEntry) { again = append(again, e.path) })
			if len(again) != len(paths) {
				t.Fatalf("two walks gave %d and %d entries", len(paths), len(again))
			}
		}
	})
}
