package workspace

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestIgnoreSurvivesPlantedFIFOs: a FIFO where a pattern file is expected
// (sub/.gitignore, .git/info/exclude) must not hang the walk or NewIgnore.
func TestIgnoreSurvivesPlantedFIFOs(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", ".git/info"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "sub", "a.go"), []byte("package a\n"), 0o644)
	for _, f := range []string{"sub/.gitignore", ".git/info/exclude", "sub/.autarchignore"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan []string)
	go func() {
		r, err := Open(dir)
		if err != nil {
			t.Error(err)
			close(done)
			return
		}
		defer r.Close()
		var seen []string
		NewIgnore(r).Walk(context.Background(), ".", func(rel string, d os.DirEntry) error {
			seen = append(seen, rel)
			return nil
		})
		done <- seen
	}()
	select {
	case seen := <-done:
		found := false
		for _, s := range seen {
			found = found || s == "sub/a.go"
		}
		if !found {
			t.Errorf("walk missed sub/a.go: %v", seen)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO pattern file hung the walk")
	}
}
