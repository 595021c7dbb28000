package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPulseTreesInParallel: eight pulse worktrees created at once (two
// Repo values, as two processes would have) all succeed — no
// .git/config.lock or index.lock race — each on its own branch from the
// workflow head, outside the user's folder; the user's state, and hooks,
// are untouched.
func TestPulseTreesInParallel(t *testing.T) {
	ctx := context.Background()
	dir, hookDir := userRepo(t)
	before := snapshot(t, dir)
	wf, err := openRepo(t, dir).CreateWorkflow(ctx, "par", "main")
	if err != nil {
		t.Fatal(err)
	}
	other, err := openRepo(t, dir).OpenWorkflow(ctx, "par", "main")
	if err != nil {
		t.Fatal(err)
	}
	head, _ := wf.Head(ctx)
	trees := make([]*PulseTree, 8)
	var wg sync.WaitGroup
	errs := make([]error, len(trees))
	for i := range trees {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := wf
			if i%2 == 1 {
				w = other
			}
			trees[i], errs[i] = w.OpenPulseTree(ctx, "p"+strconv.Itoa(i))
		}()
	}
	wg.Wait()
	for i, pt := range trees {
		if errs[i] != nil {
			t.Fatalf("pulse tree %d: %v", i, errs[i])
		}
		if pt.Base != head || pt.Resumed || !isUnder(pt.Path, filepath.Join(dir, ".git")) {
			t.Errorf("pulse tree %d = %+v; want base %s, new, under .git", i, pt, head)
		}
		if got := gitT(t, pt.Path, "symbolic-ref", "HEAD"); got != "refs/heads/"+pt.Branch {
			t.Errorf("pulse tree %d is on %s, want %s", i, got, pt.Branch)
		}
	}
	// The workflow's own worktree is still found as the workflow's.
	again, err := openRepo(t, dir).OpenWorkflow(ctx, "par", "main")
	if err != nil || again.Worktree != wf.Worktree {
		t.Errorf("reopened workflow worktree = %q, %v; want %q (not a pulse tree)", again.Worktree, err, wf.Worktree)
	}
	for _, pt := range trees {
		if err := pt.Discard(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(gitT(t, dir, "worktree", "list"), "\n"); n != 1 {
		t.Errorf("worktrees left: %s", gitT(t, dir, "worktree", "list"))
	}
	sameSnapshot(t, "after parallel pulse trees", before, snapshot(t, dir))
	if ran := hooksRan(t, hookDir); ran != "" {
		t.Errorf("hooks ran: %s", ran)
	}
}

// TestPulseTreeLandRebaseConflict: two pulses from one head; the first
// lands, the second (other file) is rebased and lands; a third touching
// the first's lines conflicts, with both sides shown, and moves nothing.
func TestPulseTreeLandRebaseConflict(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	wf, err := openRepo(t, dir).CreateWorkflow(ctx, "land", "main")
	if err != nil {
		t.Fatal(err)
	}
	open := func(id string) *PulseTree {
		pt, err := wf.OpenPulseTree(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return pt
	}
	a, b, c := open("a"), open("b"), open("c")
	writeFile(t, filepath.Join(a.Path, "lib", "lib.go"), "package lib\n\n// One is one.\nconst One = 1\n\n// Two is two.\nconst Two = 22\n")
	writeFile(t, filepath.Join(b.Path, "b.txt"), "b\n")
	writeFile(t, filepath.Join(c.Path, "lib", "lib.go"), "package lib\n\n// One is one.\nconst One = 1\n\n// Two is two.\nconst Two = 222\n")
	for pt, msg := range map[*PulseTree]string{a: "feat: a", b: "feat: b", c: "feat: c"} {
		if _, err := pt.Commit(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	if rebased, err := a.Rebase(ctx); err != nil || rebased {
		t.Fatalf("a rebase = %v, %v; want nothing to do", rebased, err)
	}
	cpA, err := a.Land(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Land(ctx); err == nil || !strings.Contains(err.Error(), "rebase first") {
		t.Fatalf("b landed on a head it does not sit on: %v", err)
	}
	if rebased, err := b.Rebase(ctx); err != nil || !rebased || b.Base != cpA.Commit {
		t.Fatalf("b rebase = %v, %v, base %s; want rebased on %s", rebased, err, b.Base, cpA.Commit)
	}
	if _, err := b.Land(ctx); err != nil {
		t.Fatal(err)
	}
	err = c.Applies(ctx)
	var conflict *Conflict
	if !errors.As(err, &conflict) || len(conflict.Files) != 1 || conflict.Files[0] != "lib/lib.go" {
		t.Fatalf("c applies: %v; want a conflict in lib/lib.go", err)
	}
	tipBefore := gitT(t, dir, "rev-parse", "refs/heads/"+c.Branch)
	_, err = c.Rebase(ctx)
	if !errors.As(err, &conflict) {
		t.Fatalf("c rebase: %v; want a conflict", err)
	}
	sides := conflict.Sides()
	for _, want := range []string{"=== lib/lib.go — on the workflow head:", "+const Two = 22\n", "=== lib/lib.go — in pulse c:", "+const Two = 222\n"} {
		if !strings.Contains(sides, want) {
			t.Errorf("sides do not show %q:\n%s", want, sides)
		}
	}
	if tip := gitT(t, dir, "rev-parse", "refs/heads/"+c.Branch); tip != tipBefore {
		t.Error("a conflicting rebase moved the pulse branch")
	}
	if got := gitT(t, dir, "log", "--format=%s", "main..autarch/land"); got != "feat: b\nfeat: a" {
		t.Errorf("workflow branch = %q", got)
	}
	if got := readFile(t, filepath.Join(wf.Worktree, "b.txt")); got != "b\n" {
		t.Errorf("the workflow worktree was not reset to the new head: b.txt = %q", got)
	}
	// A recovery keeps c's uncommitted work on its branch and removes its
	// worktree; reopening resumes it.
	writeFile(t, filepath.Join(c.Path, "more.txt"), "more\n")
	cp, err := c.Recovery(ctx, "stopped")
	if err != nil || !cp.IsRecoveryCheckpoint {
		t.Fatalf("recovery = %+v, %v", cp, err)
	}
	c2, err := wf.OpenPulseTree(ctx, "c")
	if err != nil || !c2.Resumed || readFile(t, filepath.Join(c2.Path, "more.txt")) != "more\n" {
		t.Fatalf("reopened c = %+v, %v; want it resumed with more.txt", c2, err)
	}
	if err := wf.PrunePulseTrees(ctx); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(gitT(t, dir, "worktree", "list"), "\n"); n != 1 {
		t.Errorf("worktrees left after prune: %s", gitT(t, dir, "worktree", "list"))
	}
}

// BenchmarkPulseTree: a parallel pulse's worktree (branch + linked
// worktree checkout under the ref lock) and its removal.
func BenchmarkPulseTree(b *testing.B) {
	for _, n := range []int{200, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			wf, err := openRepo(b, bigRepo(b, n)).CreateWorkflow(ctx, "bench", "main")
			if err != nil {
				b.Fatal(err)
			}
			var times []time.Duration
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				pt, err := wf.OpenPulseTree(ctx, "p"+strconv.Itoa(i))
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				b.StopTimer()
				if err := pt.Discard(ctx); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			reportMedian(b, times)
		})
	}
}

// A pulse worktree gets a copy of what preflight installed in the
// workflow's worktree (recorded artifacts), symlinks kept; the pulse's
// commit leaves them out, and changing the copy leaves the workflow's.
func TestPulseTreeGetsPreflightArtifacts(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	wf, err := openRepo(t, dir).CreateWorkflow(ctx, "deps", "main")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "node_modules", "left", "index.js"), "module.exports = 1\n")
	if err := os.Symlink("left", filepath.Join(wf.Worktree, "node_modules", "alias")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "tool.bin"), "binary\n")
	if _, err := wf.RecordArtifacts(ctx); err != nil {
		t.Fatal(err)
	}
	pt, err := wf.OpenPulseTree(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(pt.Path, "node_modules", "alias", "index.js")); got != "module.exports = 1\n" {
		t.Errorf("copied dependency through its symlink = %q", got)
	}
	if link, err := os.Readlink(filepath.Join(pt.Path, "node_modules", "alias")); err != nil || link != "left" {
		t.Errorf("symlink copied as %q, %v", link, err)
	}
	writeFile(t, filepath.Join(pt.Path, "tool.bin"), "rebuilt\n")
	if got := readFile(t, filepath.Join(wf.Worktree, "tool.bin")); got != "binary\n" {
		t.Errorf("rebuilding in the pulse changed the workflow's copy: %q", got)
	}
	writeFile(t, filepath.Join(pt.Path, "src.go"), "package main\n")
	cp, err := pt.Commit(ctx, "feat: src")
	if err != nil {
		t.Fatal(err)
	}
	files := gitT(t, dir, "show", "--name-only", "--format=", cp.Commit)
	if files != "src.go" {
		t.Errorf("pulse commit files = %q, want only src.go (artifacts left out)", files)
	}
}
