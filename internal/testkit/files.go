package testkit

import (
	"os"
	"testing"
)

// SparseFile writes head at path and extends the file to size bytes with
// a hole, so that it claims size bytes (20 GB, say) and takes no room on
// the disk: a file no tool may read whole.
func SparseFile(t testing.TB, path, head string, size int64) {
	t.Helper()
	if err := os.WriteFile(path, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}
