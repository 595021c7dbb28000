package git

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// FetchBranch brings a remote's branch in as the local branch of that
// name and fast-forwards it later; a local branch with commits the
// remote's lacks, and the checked-out branch, are left alone; the user's
// origin remote-tracking refs are untouched. RemoteURL names a remote.
func TestFetchBranch(t *testing.T) {
	ctx := context.Background()
	user, _ := userRepo(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	gitT(t, t.TempDir(), "clone", "-q", "--bare", user, remote)
	work := filepath.Join(t.TempDir(), "work")
	gitT(t, t.TempDir(), "clone", "-q", remote, work)
	gitT(t, work, "checkout", "-q", "-b", "autarch/x")
	gitT(t, work, "commit", "-q", "--allow-empty", "-m", "x1")
	gitT(t, work, "push", "-q", "origin", "autarch/x")

	r, err := Open(ctx, user, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if url := r.RemoteURL(ctx, "origin"); url != "" {
		t.Fatalf("RemoteURL of a repository without origin = %q", url)
	}
	gitT(t, user, "remote", "add", "fleet", remote)
	if url := r.RemoteURL(ctx, "fleet"); url != remote {
		t.Fatalf("RemoteURL = %q, want %s", url, remote)
	}
	for i, step := range []struct {
		name    string
		prepare func()
		wantErr string
	}{
		{"a new branch", func() {}, ""},
		{"a fast-forward", func() {
			gitT(t, work, "commit", "-q", "--allow-empty", "-m", "x2")
			gitT(t, work, "push", "-q", "origin", "autarch/x")
		}, ""},
		{"a local branch with other commits", func() {
			tree := gitT(t, user, "rev-parse", "main^{tree}")
			local := gitT(t, user, "commit-tree", "-p", "main", "-m", "local", tree)
			gitT(t, user, "branch", "-f", "autarch/x", local)
		}, "fetching autarch/x from"},
	} {
		step.prepare()
		commit, err := r.FetchBranch(ctx, remote, "autarch/x")
		if step.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), step.wantErr) {
				t.Fatalf("%d %s: FetchBranch = %s, %v; want refused", i, step.name, commit, err)
			}
			if got := gitT(t, user, "rev-parse", "autarch/x^"); got != gitT(t, user, "rev-parse", "main") {
				t.Fatalf("%d %s: the local branch moved to %s", i, step.name, got)
			}
			continue
		}
		if want := gitT(t, work, "rev-parse", "HEAD"); err != nil || commit != want || gitT(t, user, "rev-parse", "autarch/x") != want {
			t.Fatalf("%d %s: FetchBranch = %s, %v; want %s", i, step.name, commit, err, want)
		}
	}
	cur := gitT(t, user, "rev-parse", "--abbrev-ref", "HEAD")
	if _, err := r.FetchBranch(ctx, remote, cur); err == nil {
		t.Fatalf("fetched into the checked-out branch %s", cur)
	}
}
