package tools

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// TestFirstDecisionTakesTheRestoresWalk (issue 35): in a recycled
// worktree, the first mask decision takes the restore's walk instead of
// walking the tree again — and what it was handed is never taken for the
// tree as it is: a secret written after the restore's walk, in the
// restored tree before it was claimed (at its top too, which nobody
// watched while the tree was moved into place) or in the worktree before
// the first command, is masked as a walk masks it.
func TestFirstDecisionTakesTheRestoresWalk(t *testing.T) {
	ctx := context.Background()
	token := "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	secret := "token = " + token + "\n"
	files := map[string]string{
		"main.go":       "package main\n\nfunc main() {}\n",
		"README.md":     "# demo\n",
		"pkg/a.go":      "package pkg\n",
		"pkg/c.go":      "package pkg\n\nconst C = 1\n",
		"pkg/deep/b.go": "package deep\n",
		"lib/l.go":      "package lib\n",
		"keys/.env":     "API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\n",
	}
	cases := []struct {
		name string
		// used writes into the used worktree before it is retired,
		// beforeClaim into the restored tree before it is claimed, after
		// into the worktree before the first command.
		used, beforeClaim, after func(t *testing.T, tree string)
		// secrets must be masked; handed: the decision took the walk.
		secrets []string
		handed  bool
	}{
		{"nothing changed", nil, nil, nil, []string{"keys/.env"}, true},
		{"an untracked secret cleaned by git (a second walk)", func(t *testing.T, wt string) {
			testkit.WriteFile(t, filepath.Join(wt, "build", "token.txt"), secret)
		}, nil, func(t *testing.T, wt string) {
			testkit.WriteFile(t, filepath.Join(wt, "pkg", "deep", "b.go"), secret)
		}, []string{"keys/.env", "pkg/deep/b.go"}, false},
		{"written in the restored tree before the claim", nil, func(t *testing.T, tree string) {
			testkit.WriteFile(t, filepath.Join(tree, "pkg", "a.go"), secret)
			testkit.WriteFile(t, filepath.Join(tree, "README.md"), secret)
			testkit.WriteFile(t, filepath.Join(tree, "top.txt"), secret)
			testkit.WriteFile(t, filepath.Join(tree, "pkg", "deep", "new.txt"), secret)
		}, nil, []string{"README.md", "keys/.env", "pkg/a.go", "pkg/deep/new.txt", "top.txt"}, true},
		{"written in the worktree before the first command", nil, nil, func(t *testing.T, wt string) {
			testkit.WriteFile(t, filepath.Join(wt, "pkg", "deep", "b.go"), secret)
			testkit.WriteFile(t, filepath.Join(wt, "main.go"), secret)
			testkit.WriteFile(t, filepath.Join(wt, "fresh", "inner", "notes.txt"), secret)
			testkit.WriteFile(t, filepath.Join(wt, ".env"), "API_KEY=SECRET_VALUE_5e4d3c2b1a0f9e8d\n")
			if err := os.Remove(filepath.Join(wt, "keys", ".env")); err != nil {
				t.Fatal(err)
			}
		}, []string{".env", "fresh/inner/notes.txt", "main.go", "pkg/deep/b.go"}, true},
		{"a top folder swapped before the claim", nil, func(t *testing.T, tree string) {
			if err := os.Rename(filepath.Join(tree, "pkg"), filepath.Join(tree, "old")); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, filepath.Join(tree, "pkg", "c.go"), secret)
		}, nil, []string{"keys/.env", "pkg/c.go"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, used := workflowRepo(t, "used", files)
			repo.ObserveRestores(NewRestoreWatch)
			testkit.WriteFile(t, filepath.Join(used.Worktree, "lib", "l.go"), "package lib\n\n// changed\n")
			if tc.used != nil {
				tc.used(t, used.Worktree)
			}
			if err := repo.RemoveWorkflow(ctx, "used", git.RemoveOptions{DeleteBranch: true}); err != nil {
				t.Fatal(err)
			}
			if err := repo.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
				t.Fatal(err)
			}
			if tc.beforeClaim != nil {
				prepared, _ := filepath.Glob(filepath.Join(repo.WorktreeRoot(), ".prepared", "[0-9]*"))
				if len(prepared) != 1 {
					t.Fatalf("prepared trees: %q, want one", prepared)
				}
				tc.beforeClaim(t, prepared[0])
			}
			wf, err := repo.CreateWorkflow(ctx, "next", "main")
			if err != nil {
				t.Fatal(err)
			}
			if tc.after != nil {
				tc.after(t, wf.Worktree)
			}
			state := NewMaskState()
			defer state.Close()
			if w := repo.TakeRestoreWatch(wf.Worktree); w != nil {
				state.Adopt(w)
			} else if tc.handed {
				t.Fatal("the restore of the recycled tree handed nothing over")
			}
			got := maskedIn(t, wf.Worktree, state)
			if handed := state.handed == 1 && state.full == 0; handed != tc.handed {
				t.Errorf("took the restore's walk: %v (handed %d, walks %d), want %v", handed, state.handed, state.full, tc.handed)
			}
			want := maskedIn(t, wf.Worktree, nil)
			if !slices.Equal(got, want) {
				t.Errorf("masked %q, a walk of the tree masks %q", got, want)
			}
			for _, p := range tc.secrets {
				if !slices.Contains(got, p) {
					t.Errorf("%s holds a secret and is not masked (masked: %q)", p, got)
				}
			}
		})
	}
}

// maskedIn is the first mask decision of a new session in the tree dir,
// sharing state (nil: its own), as paths relative to dir.
func maskedIn(t *testing.T, dir string, state *MaskState) []string {
	t.Helper()
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo, Masks: state})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	masked, err := s.secretFiles()
	if err != nil {
		t.Fatal(err)
	}
	rel := make([]string, 0, len(masked))
	for _, p := range masked {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			t.Fatal(err)
		}
		rel = append(rel, filepath.ToSlash(r))
	}
	slices.Sort(rel)
	return rel
}
