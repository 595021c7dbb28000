package testkit

import (
	"io"
	"os"
	"testing"
)

// SparseFile claims its size and starts with its head.
func TestSparseFile(t *testing.T) {
	path := t.TempDir() + "/big.log"
	SparseFile(t, path, "first line\n", 20<<30)
	fi, err := os.Stat(path)
	if err != nil || fi.Size() != 20<<30 {
		t.Fatalf("size = %v, %v; want 20 GiB", fi, err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 12)
	if _, err := io.ReadFull(f, buf); err != nil || string(buf) != "first line\n\x00" {
		t.Errorf("head = %q, %v; want the line then the hole", buf, err)
	}
}
