package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// TestMaskWalkInNewWorktree: the first command in a new linked worktree
// takes the verdicts of its tracked clean files from the filtered object
// store (issue 35) and still masks every secret: a committed one, a
// tracked file an agent filled with one, an untracked one; the clean
// files' verdicts are then known without reading them.
func TestMaskWalkInNewWorktree(t *testing.T) {
	ctx := context.Background()
	secret := "token = " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n"
	files := map[string]string{"committed.txt": secret, "edited.txt": "nothing yet\n"}
	for i := range 100 {
		files[fmt.Sprintf("pkg/f%d.go", i)] = fmt.Sprintf("package pkg\n\nconst F%d = %d\n", i, i)
	}
	repo, wf := workflowRepo(t, "clean", files)
	wt := wf.Worktree
	writeFiles(t, wt, map[string]string{"edited.txt": secret, "new.txt": secret})
	s, err := NewSession(SessionConfig{Root: wt, GitCommonDir: repo.CommonDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	spec, err := s.commandSpec(ctx, "true", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"committed.txt", "edited.txt", "new.txt"} {
		if !slices.Contains(spec.Masked, filepath.Join(wt, name)) {
			t.Errorf("%s is not masked: %q", name, spec.Masked)
		}
	}
	for i := range 100 {
		rel := fmt.Sprintf("pkg/f%d.go", i)
		if slices.Contains(spec.Masked, filepath.Join(wt, rel)) {
			t.Errorf("%s is masked", rel)
		}
		fi, err := os.Lstat(filepath.Join(wt, rel))
		if err != nil {
			t.Fatal(err)
		}
		if _, blocked, known := s.gate.KnownVerdict(rel, workspace.StampOf(fi)); !known || blocked {
			t.Errorf("%s: verdict known %v, blocked %v; want known clean", rel, known, blocked)
		}
	}
}

// TestReencodes: a .gitattributes that may re-encode or filter files on
// checkout turns the clean-blob shortcut off.
func TestReencodes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"plain/.gitattributes":  "*.go text eol=lf\n*.png binary\n",
		"enc/.gitattributes":    "*.txt working-tree-encoding=UTF-16\n",
		"filter/.gitattributes": "*.secret filter=crypt\n",
	})
	root, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		files []string
		want  bool
	}{
		{nil, false},
		{[]string{"plain/.gitattributes"}, false},
		{[]string{"plain/.gitattributes", "enc/.gitattributes"}, true},
		{[]string{"filter/.gitattributes"}, true},
		{[]string{"gone/.gitattributes"}, true},
	} {
		if got := reencodes(root, c.files); got != c.want {
			t.Errorf("reencodes(%v) = %v, want %v", c.files, got, c.want)
		}
	}
}
