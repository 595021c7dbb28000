package tools_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestIndexUnwritableFromCommands: the host reads a workflow worktree's
// index file itself (its gitlinks, the restore's verifying walk) from the
// worktree's admin folder in the repository's git directory, never from
// what a .git in the tree names. No command can change that file: not
// with git, not by writing or replacing it, not through a gitfile or a
// .git it makes (at the root or in a subfolder), a symlink, a namespace
// of its own or /proc.
func TestIndexUnwritableFromCommands(t *testing.T) {
	ctx := context.Background()
	t.Setenv("HOME", t.TempDir())
	top := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(top, "main.go"), "package main\n")
	repo := commitAll(t, top)
	wf, err := repo.CreateWorkflow(ctx, "mine", "main")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", wf.Worktree, "rev-parse", "--absolute-git-dir").Output()
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(string(out))
	index := filepath.Join(admin, "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	call := shellSession(t, tools.SessionConfig{Root: wf.Worktree, GitCommonDir: repo.CommonDir()})
	const blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" // the empty blob
	attacks := []string{
		"git add main.go; echo x >> main.go; git add main.go; git update-index --add --cacheinfo 160000," + blob + ",evil",
		"git rm --cached main.go; git reset; git read-tree --empty",
		"cp " + index + " /tmp/i && printf 'garbage' >> /tmp/i && cp /tmp/i " + index + "; cat /tmp/i > " + index,
		"rm -f " + index + "; ln -sf /tmp/i " + index + "; mv /tmp/i " + index,
		"printf 'gitdir: /tmp/fake\\n' > .git; rm -f .git; mkdir -p /tmp/fake && GIT_DIR=/tmp/fake git init -q && echo planted > .git",
		"mkdir -p sub && printf 'gitdir: " + admin + "\\n' > sub/.git && git -C sub update-index --add --cacheinfo 100644," + blob + ",x; git -C sub read-tree --empty",
		"mkdir -p nested/.git && cp -r " + admin + "/. nested/.git/ && git --git-dir=nested/.git --work-tree=. read-tree --empty; GIT_INDEX_FILE=" + index + " git read-tree --empty",
		"unshare -Urm sh -c 'printf garbage > /tmp/i; mount --bind /tmp/i " + index + "; git read-tree --empty; cat /tmp/i > " + index + "'",
		"printf garbage > /proc/self/root" + index + "; printf garbage > /proc/1/root" + index,
		"chmod u+w " + admin + " " + index + "; touch " + index + ".lock; git update-index --refresh",
	}
	for _, c := range attacks {
		var res struct{ Stdout, Stderr string }
		if err := json.Unmarshal([]byte(call(c)), &res); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		after, err := os.ReadFile(index)
		if err != nil || !bytes.Equal(after, before) {
			t.Fatalf("%q changed the worktree's index (%v): sha256 %x, was %x\nstderr %s", c, err, sha256.Sum256(after), sha256.Sum256(before), res.Stderr)
		}
		if fi, err := os.Lstat(index); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%q replaced the index file: %v %v", c, fi, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(wf.Worktree, ".git")); err != nil || !strings.HasPrefix(string(data), "gitdir: "+admin) {
		t.Errorf("the worktree's gitfile changed: %q %v", data, err)
	}
}
