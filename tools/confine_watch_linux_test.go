package tools

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeWatchTakesAShareOfWatches: a tree watch takes at most its share
// of the user's inotify watches (editors' file watchers need them too); a
// tree with more directories loses the watch, and its decisions walk.
func TestTreeWatchTakesAShareOfWatches(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w := newTreeWatch(dir)
	if w == nil {
		t.Skip("no inotify")
	}
	defer w.close()
	if w.max <= 0 {
		t.Fatalf("a watch may take %d directories", w.max)
	}
	w.max = 2
	w.add(".")
	w.add("a")
	if w.lost || !w.full() {
		t.Fatalf("two directories of two: lost %v, full %v", w.lost, w.full())
	}
	w.add("b")
	if !w.lost {
		t.Error("a third directory was watched beyond the share")
	}
	if _, ok := w.changes(); ok {
		t.Error("a lost watch says what changed")
	}
}
