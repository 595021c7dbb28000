package git

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// pathCountingFilter counts the paths the store asks about.
type pathCountingFilter struct {
	BlobFilter
	paths atomic.Int64
}

func (c *pathCountingFilter) PathBlocked(rel string) (string, bool) {
	c.paths.Add(1)
	return c.BlobFilter.PathBlocked(rel)
}

// TestSandboxObjectsRefreshedIndexIsNotListed (issue 35): an index git
// rewrote with the same entries (a refresh, reset --hard to the same
// commit) is not listed again: before, every such rewrite listed every
// object of every index (rev-list --indexed-objects), 0.1–0.3 s on a
// 23k-file repository before the first command of a recycled worktree.
func TestSandboxObjectsRefreshedIndexIsNotListed(t *testing.T) {
	r, dir := secretRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD")
	f := &pathCountingFilter{BlobFilter: workspace.DefaultGate()}
	s := r.SandboxObjects(f, "test", 4<<20)
	v := updateStore(t, s)
	before := s.indexStamps()

	writeFile(t, filepath.Join(wt, "main.go"), "package main\n") // same content, new stat data
	gitT(t, wt, "reset", "-q", "--hard", "HEAD")
	if after := s.indexStamps(); strings.Join(after, "\n") == strings.Join(before, "\n") {
		t.Fatal("the test needs an index rewritten by git")
	}
	f.paths.Store(0)
	v2 := updateStore(t, s)
	if n := f.paths.Load(); n != 0 || v2 != v {
		t.Errorf("an index refreshed with the same entries: %d paths looked at, view %v → %v; want 0 and the same view", n, v, v2)
	}
	if st := s.load(); strings.Join(st.Index, "\n") != strings.Join(s.indexStamps(), "\n") {
		t.Errorf("the store does not record the refreshed index's version: %q", st.Index)
	}
	// One file staged: only its entry is looked at, the others are the
	// main index's, which the store covers.
	writeFile(t, filepath.Join(wt, "new.txt"), "new\n")
	gitT(t, wt, "add", "new.txt")
	f.paths.Store(0)
	if v3 := updateStore(t, s); !inView(t, wt, v3, ":new.txt") || f.paths.Load() != 1 {
		t.Errorf("one file staged: in the view %v, %d paths looked at, want 1", inView(t, wt, v3, ":new.txt"), f.paths.Load())
	}
	gitT(t, wt, "reset", "-q", "--hard", "HEAD")
	updateStore(t, s)
	// The store covers the index as it is: CleanFiles answers.
	if clean, err := s.CleanFiles(t.Context(), wt); err != nil || !clean["main.go"] {
		t.Errorf("CleanFiles after a refresh = %v, %v; want main.go clean", clean, err)
	}
}

// TestSandboxObjectsIndexAttacks: whatever lands in an index with no
// commit — staged by the user, by Autarch's checkpoint, by hand with
// update-index, in a split index — is withheld when secret, though the
// store reads the indexes itself and skips those it covered.
func TestSandboxObjectsIndexAttacks(t *testing.T) {
	awsKey := "aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\"\n"
	cases := []struct {
		name  string
		stage func(t *testing.T, wt string) (oid string) // stages a secret; its blob
	}{
		{"packed clean blob staged under a secret name", func(t *testing.T, wt string) string {
			oid := gitT(t, wt, "rev-parse", "HEAD:notes.txt")
			gitT(t, wt, "update-index", "--add", "--cacheinfo", "100644,"+oid+",deploy/.env.prod")
			return oid
		}},
		{"packed clean blob renamed to a secret name", func(t *testing.T, wt string) string {
			oid := gitT(t, wt, "rev-parse", "HEAD:notes.txt")
			gitT(t, wt, "mv", "notes.txt", "id_rsa")
			return oid
		}},
		{"new secret content under a clean name", func(t *testing.T, wt string) string {
			writeFile(t, filepath.Join(wt, "conf.ini"), awsKey)
			gitT(t, wt, "add", "conf.ini")
			return gitT(t, wt, "rev-parse", ":conf.ini")
		}},
		{"secret content staged over a path the main index holds", func(t *testing.T, wt string) string {
			writeFile(t, filepath.Join(wt, "notes.txt"), awsKey+"# notes\n")
			gitT(t, wt, "add", "notes.txt")
			return gitT(t, wt, "rev-parse", ":notes.txt")
		}},
		{"new secret content in a new folder", func(t *testing.T, wt string) string {
			writeFile(t, filepath.Join(wt, "a", "b", "c.txt"), awsKey+"# c\n")
			gitT(t, wt, "add", "a")
			return gitT(t, wt, "rev-parse", ":a/b/c.txt")
		}},
		{"new secret object staged by hand", func(t *testing.T, wt string) string {
			oid := hashObject(t, wt, awsKey+"# by hand\n")
			gitT(t, wt, "update-index", "--add", "--cacheinfo", "100644,"+oid+",plain.txt")
			return oid
		}},
		{"a secret staged in a split index", func(t *testing.T, wt string) string {
			gitT(t, wt, "update-index", "--split-index")
			writeFile(t, filepath.Join(wt, "split.txt"), awsKey+"# split\n")
			gitT(t, wt, "add", "split.txt")
			return gitT(t, wt, "rev-parse", ":split.txt")
		}},
		{"a secret staged, then the index refreshed", func(t *testing.T, wt string) string {
			writeFile(t, filepath.Join(wt, "later.txt"), awsKey+"# later\n")
			gitT(t, wt, "add", "later.txt")
			gitT(t, wt, "update-index", "-q", "--ignore-missing", "--really-refresh")
			return gitT(t, wt, "rev-parse", ":later.txt")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, dir := secretRepo(t)
			writeFile(t, filepath.Join(dir, "notes.txt"), "clean notes\n")
			gitT(t, dir, "add", "notes.txt")
			gitT(t, dir, "commit", "-q", "-m", "notes")
			wt := filepath.Join(t.TempDir(), "wt")
			gitT(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD")
			s := r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
			updateStore(t, s)
			// A refresh first, so that the store skips this index by its
			// entries from now on.
			gitT(t, wt, "update-index", "-q", "--ignore-missing", "--really-refresh")
			updateStore(t, s)

			oid := c.stage(t, wt)
			v := updateStore(t, s)
			if _, ok := s.Withheld(oid); !ok {
				t.Errorf("blob %s is not withheld", oid)
			}
			if inView(t, wt, v, oid) {
				t.Errorf("blob %s is in the commands' view", oid)
			}
			// Later updates keep withholding it.
			gitT(t, wt, "update-index", "-q", "--ignore-missing", "--really-refresh")
			if v := updateStore(t, s); inView(t, wt, v, oid) {
				t.Errorf("blob %s is in the view after a refresh", oid)
			}
		})
	}
}

// hashObject writes content as a blob of the repository at dir.
func hashObject(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "blob")
	writeFile(t, p, content)
	return strings.TrimSpace(gitT(t, dir, "hash-object", "-w", p))
}

// TestSandboxObjectsReadsOnlyChangedIndexes: an update after one
// worktree's index changed reads that index only; the others' snapshots
// are the ones read before (issue 35: each checkpoint re-read every
// worktree's 23k-entry index).
func TestSandboxObjectsReadsOnlyChangedIndexes(t *testing.T) {
	r, dir := secretRepo(t)
	wt := filepath.Join(t.TempDir(), "wt")
	gitT(t, dir, "worktree", "add", "-q", "--detach", wt, "HEAD")
	s := r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	updateStore(t, s)
	main := filepath.Join(r.CommonDir(), "index")
	first, ok := s.indexes.snaps[main]
	if !ok || len(first.snap.objects) == 0 {
		t.Fatalf("the main index was not read: %v", s.indexes.snaps)
	}
	writeFile(t, filepath.Join(wt, "new.txt"), "new\n")
	gitT(t, wt, "add", "new.txt")
	v := updateStore(t, s)
	if !inView(t, wt, v, ":new.txt") {
		t.Fatal("the staged file is not in the view")
	}
	if again := s.indexes.snaps[main]; &again.snap.objects[0] != &first.snap.objects[0] {
		t.Error("the unchanged main index was read again")
	}
}
