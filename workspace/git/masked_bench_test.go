package git

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// TestMeasureSandboxObjects prints the build time and disk size of the
// filtered object store of a repository (AUTARCH_MEASURE_REPO: a clone,
// which gets one more commit) and the time of an incremental update after
// one commit and of a check with nothing changed.
func TestMeasureSandboxObjects(t *testing.T) {
	dir := os.Getenv("AUTARCH_MEASURE_REPO")
	if dir == "" {
		t.Skip("set AUTARCH_MEASURE_REPO to a repository clone to measure")
	}
	ctx := context.Background()
	r, err := Open(ctx, dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.SandboxObjects(workspace.DefaultGate(), "measure", 4<<20)
	os.RemoveAll(s.Dir())
	start := time.Now()
	v, err := s.Update(ctx)
	if err != nil {
		t.Fatal(err)
	}
	build := time.Since(start)
	st := s.load()
	start = time.Now()
	if _, err := s.Update(ctx); err != nil {
		t.Fatal(err)
	}
	check := time.Since(start)
	writeFile(t, filepath.Join(dir, "measure-one-more.txt"), "one more "+time.Now().String()+"\n")
	gitT(t, dir, "add", "measure-one-more.txt")
	gitT(t, dir, "commit", "-q", "-m", "one more")
	start = time.Now()
	v2, err := s.Update(ctx)
	if err != nil {
		t.Fatal(err)
	}
	incr := time.Since(start)
	fmt.Printf("| repository | reachable objects | real store size | build | filtered store size | withheld blobs | check, nothing changed | incremental after one commit | same generation |\n|---|---|---|---|---|---|---|---|---|\n")
	fmt.Printf("| %s | %d | %.1f MB | %v | %.1f MB | %d | %v | %v | %v |\n", dir, countLines(gitT(t, dir, "rev-list", "--objects", "--all")),
		float64(du(filepath.Join(r.CommonDir(), "objects")))/1e6, build.Round(time.Millisecond),
		float64(du(v.Objects))/1e6, len(st.Withheld), check.Round(100*time.Microsecond), incr.Round(time.Millisecond), v2.Objects == v.Objects)
}

func du(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func countLines(s string) int {
	n := 0
	for range strings.Lines(s) {
		n++
	}
	return n
}
