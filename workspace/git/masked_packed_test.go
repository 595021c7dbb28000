package git

import (
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// countingFilter counts the blobs whose content is scanned.
type countingFilter struct {
	BlobFilter
	scanned atomic.Int64
}

func (c *countingFilter) ContentBlocked(data []byte) (string, bool) {
	c.scanned.Add(1)
	return c.BlobFilter.ContentBlocked(data)
}

func packFiles(t *testing.T, v View) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(v.Objects, "pack", "*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// TestSandboxObjectsNewIndexOfPackedObjects: a new worktree's index
// holding only objects the store packs already is neither scanned nor
// packed again (issue 35: every new worktree re-read the whole
// repository); a new blob staged there is still read.
func TestSandboxObjectsNewIndexOfPackedObjects(t *testing.T) {
	r, dir := secretRepo(t)
	f := &countingFilter{BlobFilter: workspace.DefaultGate()}
	s := r.SandboxObjects(f, "test", 4<<20)
	v := updateStore(t, s)
	packs := packFiles(t, v)

	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD")
	f.scanned.Store(0)
	v2 := updateStore(t, s)
	if n := f.scanned.Load(); n != 0 {
		t.Errorf("a new index of packed objects: %d blobs scanned again, want 0", n)
	}
	if v2.Objects != v.Objects || packFiles(t, v2) != packs {
		t.Errorf("a new index of packed objects: packs %d → %d in %s → %s, want no new pack", packs, packFiles(t, v2), v.Objects, v2.Objects)
	}

	// A new blob staged in that index is still read, and withheld.
	writeFile(t, filepath.Join(wt, "conf.ini"), "aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\"\n")
	gitT(t, wt, "add", "conf.ini")
	v3 := updateStore(t, s)
	oid := gitT(t, wt, "rev-parse", ":conf.ini")
	if _, ok := s.Withheld(oid); !ok || inView(t, wt, v3, oid) || f.scanned.Load() != 1 {
		t.Errorf("a new secret blob in the new index: withheld %v, in the view %v, %d blobs scanned (want 1)", ok, inView(t, wt, v3, oid), f.scanned.Load())
	}
}
