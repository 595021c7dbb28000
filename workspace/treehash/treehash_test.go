package treehash

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Every kind of change shows: content, a new file, a new directory, a
// mode, a modification time, a symlink's target.
func TestSumSeesEveryChange(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(f, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	sum := func() string {
		t.Helper()
		s, _, err := Sum(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	prev := sum()
	if again := sum(); again != prev {
		t.Fatal("the same tree hashes differently")
	}
	changes := []struct {
		name string
		do   func() error
	}{
		{"content", func() error { return os.WriteFile(f, []byte("b"), 0o644) }},
		{"new file", func() error { return os.WriteFile(filepath.Join(dir, "b.txt"), nil, 0o644) }},
		{"new directory", func() error { return os.Mkdir(filepath.Join(dir, "d"), 0o755) }},
		{"mode", func() error { return os.Chmod(f, 0o600) }},
		{"modification time", func() error { return os.Chtimes(f, time.Now(), time.Unix(1, 0)) }},
		{"symlink target", func() error {
			os.Remove(filepath.Join(dir, "l"))
			return os.Symlink("b.txt", filepath.Join(dir, "l"))
		}},
	}
	for _, c := range changes {
		if err := c.do(); err != nil {
			t.Fatal(err)
		}
		if now := sum(); now == prev {
			t.Errorf("a change of %s does not change the sum", c.name)
		} else {
			prev = now
		}
	}
	if _, _, err := Sum(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory has a sum")
	}
}
