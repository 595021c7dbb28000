package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// Golden writes the golden file on update, then passes the same output and
// fails a different one or a missing file.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.golden")
	run := func(got string, update bool) string {
		rec := &fatalRecorder{}
		return rec.run(func() { Golden(rec, path, []byte(got), update) })
	}
	if failed := run("one\n", false); failed == "" {
		t.Error("a missing golden file passed")
	}
	if failed := run("one\n", true); failed != "" {
		t.Fatalf("update failed: %s", failed)
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "one\n" {
		t.Fatalf("golden file = %q, %v", data, err)
	}
	if failed := run("one\n", false); failed != "" {
		t.Errorf("the same output failed: %s", failed)
	}
	if failed := run("two\n", false); failed == "" {
		t.Error("a different output passed")
	}
}
