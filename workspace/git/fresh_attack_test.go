package git

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFreshTreeSameTickRewrite (issue 35): a file rewritten with the same
// size and its modification time set back, in the very clock tick in
// which git wrote it (so its change time, stamped with the kernel's
// coarse clock, is the one the index recorded), never survives into the
// next workflow's tree. The tree is attacked the moment it has been made
// fresh, again and again in one process, so that the attack shares git's
// tick at least sometimes (on a file system with coarse change times,
// such as ramfs or ext4 before Linux 6.13: TMPDIR=/mnt/ramfs), and every
// restored tree must be a fresh checkout: every file whose change time is
// at or after the moment the tree was made fresh is written again.
func TestFreshTreeSameTickRewrite(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	want := map[string][]byte{}
	for _, p := range strings.Split(strings.TrimSpace(gitT(t, dir, "ls-tree", "-r", "--name-only", "main")), "\n") {
		data, err := exec.Command("git", "-C", dir, "cat-file", "blob", "main:"+p).Output()
		if err != nil {
			t.Fatal(err)
		}
		want[p] = data
	}
	// attack rewrites every file of the tree at top with other bytes of
	// the same size, and sets its modification time back.
	attack := func(top string) {
		for p := range want {
			f := filepath.Join(top, p)
			fi, err := os.Lstat(f)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			evil := bytes.ToUpper(data)
			if bytes.Equal(evil, data) {
				evil = bytes.ToLower(data)
			}
			if err := os.WriteFile(f, evil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}
	}
	// planted names the files of the tree at top that are not main's.
	planted := func(top string) []string {
		var bad []string
		for p, data := range want {
			if got, err := os.ReadFile(filepath.Join(top, p)); err != nil || !bytes.Equal(got, data) {
				bad = append(bad, p)
			}
		}
		return bad
	}
	runs := 300
	if testing.Short() {
		runs = 30
	}
	wf, err := r.CreateWorkflow(ctx, "w0", "main")
	if err != nil {
		t.Fatal(err)
	}
	attack(wf.Worktree)
	failed := 0
	for i := 1; i <= runs; i++ {
		if err := r.RemoveWorkflow(ctx, "w"+strconv.Itoa(i-1), RemoveOptions{DeleteBranch: true}); err != nil {
			t.Fatal(err)
		}
		if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
			t.Fatal(err)
		}
		r.prepared.mu.Lock()
		top := r.prepared.ready[0].path
		r.prepared.mu.Unlock()
		if bad := planted(top); len(bad) > 0 {
			failed++
			t.Logf("run %d: the restored tree kept planted %v", i, bad)
		}
		attack(top) // the moment it is fresh: git's tick
		if _, err := r.CreateWorkflow(ctx, "w"+strconv.Itoa(i), "main"); err != nil {
			t.Fatal(err)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d restored trees kept a file rewritten in git's tick", failed, runs)
	}
}
