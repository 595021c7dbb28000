package trust

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
)

func TestStatusFollowsContent(t *testing.T) {
	repo := t.TempDir()
	store := At(filepath.Join(t.TempDir(), "sub", "trusted.json"))
	c, err := Read(repo)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := store.Check(c); st != None {
		t.Fatalf("no config: %v", st)
	}
	testkit.WriteFile(t, filepath.Join(repo, HooksFile), `{"hooks": []}`)
	c, _ = Read(repo)
	steps := []struct {
		do   func()
		want Status
	}{
		{func() {}, New},
		{func() { must(t, store.Trust(c)) }, Trusted},
		{func() { testkit.WriteFile(t, filepath.Join(repo, HooksFile), `{"hooks": [] }`) }, Changed},
		{func() { testkit.WriteFile(t, filepath.Join(repo, HooksFile), `{"hooks": []}`) }, Trusted},
		{func() { testkit.WriteFile(t, filepath.Join(repo, MCPFile), `{}`) }, Changed}, // a new file is new content
		{func() { os.Remove(filepath.Join(repo, MCPFile)) }, Trusted},
		{func() { must(t, store.Revoke(c.Repo)) }, New},
	}
	for i, s := range steps {
		s.do()
		c2, err := Read(repo)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := store.Check(c2); err != nil || st != s.want {
			t.Errorf("step %d: %v %v, want %v", i, st, err, s.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(store.Path())); len(entries) != 1 {
		t.Errorf("the store left temporary files: %v", entries)
	}
}

func TestDigestIsNotAmbiguous(t *testing.T) {
	a := Config{Files: []File{{Name: "a", Data: []byte("bc")}}}
	b := Config{Files: []File{{Name: "ab", Data: []byte("c")}}}
	if a.Digest() == b.Digest() {
		t.Fatal("different configurations share a digest")
	}
}

func TestReadRefusesWhatIsNotAPlainFile(t *testing.T) {
	repo := t.TempDir()
	outside := t.TempDir()
	testkit.WriteFile(t, filepath.Join(outside, "hooks"), "{}")
	os.MkdirAll(filepath.Join(repo, ".autarch"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "hooks"), filepath.Join(repo, HooksFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(repo); err == nil {
		t.Fatal("a symlinked hooks file was read")
	}
}

func TestCorruptStoreSaysWhatToDo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "trusted.json")
	os.WriteFile(p, []byte("{"), 0o600)
	repo := t.TempDir()
	testkit.WriteFile(t, filepath.Join(repo, HooksFile), "{}")
	c, _ := Read(repo)
	if _, err := At(p).Check(c); err == nil {
		t.Fatal("a corrupt store was accepted")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
