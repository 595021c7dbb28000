package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

func putFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitTree makes top a repository with everything in it committed.
func commitTree(t *testing.T, top string) *git.Repo {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = top
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	repo, err := git.Open(context.Background(), top, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestMaskWalkInNewWorktree: the first command in a new linked worktree
// takes the verdicts of its tracked clean files from the filtered object
// store (issue 35) and still masks every secret: a committed one, a
// tracked file an agent filled with one, an untracked one; the clean
// files' verdicts are then known without reading them.
func TestMaskWalkInNewWorktree(t *testing.T) {
	ctx := context.Background()
	top := t.TempDir()
	secret := "token = " + "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5" + "\n"
	for i := range 100 {
		putFile(t, filepath.Join(top, "pkg", fmt.Sprintf("f%d.go", i)), fmt.Sprintf("package pkg\n\nconst F%d = %d\n", i, i))
	}
	putFile(t, filepath.Join(top, "committed.txt"), secret)
	putFile(t, filepath.Join(top, "edited.txt"), "nothing yet\n")
	repo := commitTree(t, top)
	wf, err := repo.CreateWorkflow(ctx, "clean", "main")
	if err != nil {
		t.Fatal(err)
	}
	wt := wf.Worktree
	putFile(t, filepath.Join(wt, "edited.txt"), secret)
	putFile(t, filepath.Join(wt, "new.txt"), secret)
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
