package team

import (
	"path/filepath"
	"testing"
)

func TestGetRepoState(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
	h := newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})

	got, res := h.call("get_repo_state", map[string]any{})
	expect(t, got, res, "", map[string]any{"branch": "", "detached": true, "clean": true, "ahead": 0, "behind": 0,
		"staged": []string{}, "modified": []string{}, "untracked": []string{}})

	// The worktree tracks origin/main; the remote gains a commit from
	// another clone, the worktree makes two of its own.
	runGit(t, r.wt, "switch", "-q", "-c", "feature", "--track", "origin/main")
	other := filepath.Join(t.TempDir(), "other")
	runGit(t, r.user, "clone", "-q", r.remote, other)
	write(t, other, map[string]string{"remote.txt": "r\n"})
	runGit(t, other, "add", "-A")
	runGit(t, other, "commit", "-q", "-m", "remote change")
	runGit(t, other, "push", "-q", "origin", "main")
	runGit(t, r.wt, "fetch", "-q", "origin")
	for _, m := range []string{"one", "two"} {
		write(t, r.wt, map[string]string{m + ".txt": m})
		runGit(t, r.wt, "add", "-A")
		runGit(t, r.wt, "commit", "-q", "-m", "feat: "+m)
	}
	write(t, r.wt, map[string]string{"a.txt": "staged\n", "b.txt": "modified\n", "new/u.txt": "u\n"})
	runGit(t, r.wt, "add", "a.txt")
	write(t, r.wt, map[string]string{"c.txt": "both\n"})
	runGit(t, r.wt, "add", "c.txt")
	write(t, r.wt, map[string]string{"c.txt": "both again\n"})

	got, res = h.call("get_repo_state", map[string]any{})
	expect(t, got, res, "", map[string]any{"branch": "feature", "upstream": "origin/main", "clean": false, "ahead": 2, "behind": 1,
		"staged": []string{"a.txt", "c.txt"}, "modified": []string{"b.txt", "c.txt"}, "untracked": []string{"new/u.txt"}})
	last, _ := got["lastCommit"].(map[string]any)
	if last["hash"] != runGit(t, r.wt, "rev-parse", "HEAD") || last["message"] != "feat: two" || last["author"] != "T <t@x>" || last["date"] == "" {
		t.Errorf("lastCommit = %v", last)
	}
	if _, ok := got["detached"]; ok {
		t.Errorf("detached on a branch: %s", res.Output)
	}
}
