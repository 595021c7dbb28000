package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A clone of a bare remote at a commit, a commit on a branch, a fast-forward
// push; a push that would drop the remote's commit is refused; a clone at a
// remote branch.
func TestCloneAndPush(t *testing.T) {
	ctx := context.Background()
	user, _ := userRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitT(t, t.TempDir(), "clone", "-q", "--bare", user, remote)
	first := gitT(t, remote, "rev-parse", "main~1")

	dir := filepath.Join(t.TempDir(), "clone")
	r, err := Clone(ctx, remote, dir, first, "fleet-base", Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, dir, "rev-parse", "HEAD"); got != first {
		t.Fatalf("clone HEAD = %s, want %s", got, first)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.txt")); err != nil {
		t.Fatalf("the work tree is not checked out: %v", err)
	}
	gitT(t, dir, "checkout", "-q", "-b", "autarch/x")
	writeFile(t, filepath.Join(dir, "x.txt"), "x\n")
	gitT(t, dir, "add", "x.txt")
	gitT(t, dir, "commit", "-q", "-m", "x")
	if err := r.Push(ctx, remote, "autarch/x"); err != nil {
		t.Fatal(err)
	}
	if got, want := gitT(t, remote, "rev-parse", "autarch/x"), gitT(t, dir, "rev-parse", "HEAD"); got != want {
		t.Fatalf("remote branch = %s, want %s", got, want)
	}
	bs, err := r.Branches(ctx, "autarch/")
	if err != nil || len(bs) != 1 || bs["autarch/x"] == "" {
		t.Fatalf("Branches = %v, %v", bs, err)
	}
	gitT(t, dir, "reset", "-q", "--hard", first)
	gitT(t, dir, "commit", "-q", "--allow-empty", "-m", "other")
	if err := r.Push(ctx, remote, "autarch/x"); err == nil || !strings.Contains(err.Error(), "pushing autarch/x") {
		t.Fatalf("a non-fast-forward push = %v, want refused", err)
	}
	if _, err := Clone(ctx, remote, filepath.Join(t.TempDir(), "c2"), "autarch/x", "fleet-base", Config{}); err != nil {
		t.Fatalf("clone at a remote branch: %v", err)
	}
}
