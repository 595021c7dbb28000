package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRemoveWorkflowDeletesFilesAside (issue 35): removing a workflow's
// worktree moves its files aside first, so git removes a worktree that
// holds nothing but its .git file (deleting 23k files took 15–40 s that a
// workflow's end waited for); the files are deleted in the background,
// and what a process left in the trash is swept by the next
// PrepareWorktrees. The worktree, its registration and its branches go as
// before.
func TestRemoveWorkflowDeletesFilesAside(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "git")
	log := filepath.Join(t.TempDir(), "log")
	// The wrapper records what the worktree holds when git removes it.
	script := "#!/bin/sh\ncase \"$*\" in *' worktree remove '*) for last; do :; done; echo \"remove $last:\" >> '" + log + "'; ls -A \"$last\" >> '" + log + "';; esac\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Open(ctx, dir, Config{GitPath: bin})
	if err != nil {
		t.Fatal(err)
	}
	wf, err := r.CreateWorkflow(ctx, "aside", "main")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wf.Worktree, "build", "out.bin"), "artifact\n")
	if err := r.RemoveWorkflow(ctx, "aside", RemoveOptions{DeleteBranch: true}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(data)); got != "remove "+wf.Worktree+":\n.git" {
		t.Errorf("git removed a worktree still holding its files:\n%s", got)
	}
	if _, err := os.Stat(wf.Worktree); !os.IsNotExist(err) {
		t.Errorf("the worktree %s is still there: %v", wf.Worktree, err)
	}
	if list := gitT(t, dir, "worktree", "list", "--porcelain"); strings.Contains(list, wf.Worktree) {
		t.Errorf("the worktree is still registered:\n%s", list)
	}
	if b := branches(t, dir); strings.Contains(strings.Join(b, " "), "autarch/aside") {
		t.Errorf("the workflow branch is left: %v", b)
	}

	// A dead process's leftovers are swept; a live one's are not.
	dead := filepath.Join(r.trashDir(), "999999999-1")
	live := filepath.Join(r.trashDir(), strconv.Itoa(os.Getppid())+"-1")
	for _, d := range []string{dead, live} {
		writeFile(t, filepath.Join(d, "pkg", "f.go"), "package pkg\n")
	}
	if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead process's trash %s was not swept: %v", dead, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live process's trash %s was swept: %v", live, err)
	}
	if err := r.DropPreparedWorktrees(ctx, "next"); err != nil {
		t.Fatal(err)
	}
}
