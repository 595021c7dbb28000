package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStatusIsGitStatusInTwoHalves (issue 35): the worktree's status is
// taken as two git processes at once — the tracked changes (git status
// --untracked-files=no, a stat pass) and the untracked files (git
// ls-files --others, a walk) — and says exactly what one git status
// --untracked-files=normal says, entry for entry and in its order, for
// every kind of change.
func TestStatusIsGitStatusInTwoHalves(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r, log := loggedRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "halves", "main")
	if err != nil {
		t.Fatal(err)
	}
	wt := wf.Worktree
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"clean", func(t *testing.T) {}},
		{"modified, deleted, staged", func(t *testing.T) {
			writeFile(t, filepath.Join(wt, "README.md"), "changed\n")
			if err := os.Remove(filepath.Join(wt, "old.txt")); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(wt, "main.go"), "package main\n// staged\n")
			gitT(t, wt, "add", "main.go")
		}},
		{"a mode change and a staged rename", func(t *testing.T) {
			if err := os.Chmod(filepath.Join(wt, "lib", "lib.go"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitT(t, wt, "mv", "main.go", "renamed.go")
		}},
		{"untracked files, folders, a nested repository, ignored and empty ones", func(t *testing.T) {
			writeFile(t, filepath.Join(wt, "new.go"), "package main\n")
			writeFile(t, filepath.Join(wt, "gen", "deep", "out.txt"), "generated\n")
			writeFile(t, filepath.Join(wt, "lib", "extra.go"), "package lib\n")
			writeFile(t, filepath.Join(wt, "logs", "x.log"), "ignored\n")
			writeFile(t, filepath.Join(wt, "trace.log"), "ignored\n")
			writeFile(t, filepath.Join(wt, "name with spaces.txt"), "s\n")
			writeFile(t, filepath.Join(wt, "é.txt"), "unicode\n")
			writeFile(t, filepath.Join(wt, "new\nline.txt"), "newline\n")
			writeFile(t, filepath.Join(wt, "a.b", "x"), "x\n")
			writeFile(t, filepath.Join(wt, "a-c"), "x\n")
			if err := os.MkdirAll(filepath.Join(wt, "empty", "deeper"), 0o755); err != nil {
				t.Fatal(err)
			}
			gitT(t, wt, "init", "-q", "nested")
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.do(t)
			if err := os.Truncate(log, 0); err != nil {
				t.Fatal(err)
			}
			got, err := wf.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want, err := parseStatus(gitT(t, wt, "status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignore-submodules=all"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Entries, want.Entries) {
				t.Errorf("status:\n got %q\nwant %q", got.Entries, want.Entries)
			}
			cmds := readFile(t, log)
			if !strings.Contains(cmds, " status --porcelain=v1 -z --untracked-files=no ") || !strings.Contains(cmds, " ls-files --others --directory ") {
				t.Errorf("the status was not taken as its two halves:\n%s", cmds)
			}
		})
	}
}
