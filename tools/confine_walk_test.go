package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestMaskWalkFindsEverySecret: the parallel mask walk (issue 35) masks,
// in fs.WalkDir's order, every secret file of a deep and wide tree — by
// name and by content, in nested, dotted and many sibling folders, next
// to symlinks to secrets and to folders it must not follow — and nothing
// in .git or dependency folders; a folder it cannot read stops its watch
// (the next decision walks again instead of trusting it).
func TestMaskWalkFindsEverySecret(t *testing.T) {
	token := "token = " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n"
	dir := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"key.txt": token})
	var want []string
	secret := func(rel, content string) {
		writeFiles(t, dir, map[string]string{rel: content})
		want = append(want, filepath.Join(dir, rel))
	}
	for i := range 40 {
		for j := range 5 {
			writeFiles(t, dir, map[string]string{fmt.Sprintf("d%02d/s%d/f.go", i, j): "package f\n"})
		}
		if i%7 == 0 {
			secret(fmt.Sprintf("d%02d/s%d/deep/er/notes.txt", i, i%5), token)
		}
	}
	secret(".env", "X=1\n")
	secret("a.txt", token)
	secret("a/b.txt", token)
	secret(".hidden/.env.local", "Y=2\n")
	secret("config/id_rsa", "not really a key\n")
	writeFiles(t, dir, map[string]string{"a.go": "package a\n", "node_modules/x/key.txt": token, ".git/secret.txt": token})
	if err := os.Symlink(filepath.Join(outside, "key.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}

	s, err := NewSession(SessionConfig{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.secretFiles()
	if err != nil {
		t.Fatal(err)
	}
	// fs.WalkDir's order: a folder's entries by name.
	var order []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			order = append(order, p)
		}
		return nil
	})
	wantSorted := slices.DeleteFunc(slices.Clone(order), func(p string) bool { return !slices.Contains(want, p) })
	if !slices.Equal(got, wantSorted) {
		t.Errorf("masks = %q\nwant %q", got, wantSorted)
	}
	if st := s.confine.state; st.watch == nil {
		t.Fatal("a readable tree: the walk starts a watch")
	}

	// A folder it cannot read (as a non-root user would meet it): the
	// watch is not trusted.
	if os.Geteuid() == 0 {
		return // root reads every folder
	}
	locked := filepath.Join(dir, "locked")
	writeFiles(t, locked, map[string]string{"x.txt": "x\n"})
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	s.confine.state.Close()
	s.confine.state = nil
	if _, err := s.secretFiles(); err != nil {
		t.Fatal(err)
	}
	if s.confine.state.watch != nil {
		t.Error("a folder the walk could not read: the watch is trusted")
	}
}
