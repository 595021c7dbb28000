package tools

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/workspace/git"
)

// BenchmarkFirstDecisionRecycled (issue 35): the first mask decision in a
// recycled worktree of a 23k-file repository, walking the tree ("walk")
// or taking the restore's walk ("handover"); the verdicts of the files'
// versions are known (the spent tree's files keep their inodes).
func BenchmarkFirstDecisionRecycled(b *testing.B) {
	ctx := context.Background()
	repo := generatedRepo(b, 23000)
	repo.ObserveRestores(NewRestoreWatch)
	gate := b.TempDir() // the gate's verdicts, kept across sessions
	n := 0
	next := func(b *testing.B) (*git.Workflow, git.RestoreWatch) {
		b.Helper()
		n++
		if err := repo.PrepareWorktrees(ctx, "w", "main", 1); err != nil {
			b.Fatal(err)
		}
		wf, err := repo.CreateWorkflow(ctx, "w"+strconv.Itoa(n), "main")
		if err != nil {
			b.Fatal(err)
		}
		return wf, repo.TakeRestoreWatch(wf.Worktree)
	}
	done := func(b *testing.B, wf *git.Workflow) {
		b.Helper()
		testkit.WriteFile(b, filepath.Join(wf.Worktree, "pkg0", "f0.go"), "package pkg0\n\n// changed\n")
		if err := repo.RemoveWorkflow(ctx, wf.Name, git.RemoveOptions{DeleteBranch: true}); err != nil {
			b.Fatal(err)
		}
	}
	wf, w := next(b) // a fresh checkout: every verdict decided once
	decide(b, wf, w, gate, false)
	done(b, wf)
	for _, handover := range []bool{false, true} {
		b.Run(map[bool]string{false: "walk", true: "handover"}[handover], func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				wf, w := next(b)
				b.StartTimer()
				decide(b, wf, w, gate, handover)
				b.StopTimer()
				done(b, wf)
				b.StartTimer()
			}
		})
	}
}

// decide makes the first mask decision of a session in wf's worktree,
// adopting the restore's watch w when handover is set.
func decide(b *testing.B, wf *git.Workflow, w git.RestoreWatch, stateDir string, handover bool) {
	b.Helper()
	state := NewMaskState()
	defer state.Close()
	if handover {
		state.Adopt(w)
	} else if w != nil {
		w.Close()
	}
	s, err := NewSession(SessionConfig{Root: wf.Worktree, Masks: state, StateDir: stateDir})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.secretFiles(); err != nil {
		b.Fatal(err)
	}
	if handover && state.handed != 1 {
		b.Fatal("the decision did not take the restore's walk")
	}
}
