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

// TestGetRepoStateAheadBehindWithoutUpstream (003-10): with no upstream,
// ahead/behind count against the base the branch was created from, else
// the default branch, and say which; never a silent 0.
func TestGetRepoStateAheadBehindWithoutUpstream(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(t *testing.T, r repo)
		branch string
		want   map[string]any
	}{
		{"pushed without -u: the default branch", func(t *testing.T, r repo) {
			runGit(t, r.wt, "switch", "-q", "-c", "pushed")
			commit(t, r.wt, "one")
			runGit(t, r.wt, "push", "-q", "origin", "pushed")
		}, "pushed", map[string]any{"ahead": 1, "behind": 0, "comparedWith": "origin/main"}},
		{"created from a base: the base", func(t *testing.T, r repo) {
			runGit(t, r.wt, "switch", "-q", "-c", "base")
			commit(t, r.wt, "b1")
			commit(t, r.wt, "b2")
			runGit(t, r.wt, "switch", "-q", "--no-track", "-c", "topic", "base")
			commit(t, r.wt, "t1")
			runGit(t, r.wt, "switch", "-q", "base")
			commit(t, r.wt, "b3")
			runGit(t, r.wt, "switch", "-q", "topic")
		}, "topic", map[string]any{"ahead": 1, "behind": 1, "comparedWith": "base"}},
		{"detached: the default branch", func(t *testing.T, r repo) {
			commit(t, r.wt, "d1")
		}, "", map[string]any{"ahead": 1, "behind": 0, "comparedWith": "origin/main"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n"})
			tt.setup(t, r)
			h := newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})
			got, res := h.call("get_repo_state", map[string]any{})
			tt.want["branch"] = tt.branch
			expect(t, got, res, "", tt.want)
		})
	}

	// create_branch (no upstream: --no-track) from the default branch.
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	h := newHarness(t, r.wt, &fakeJob{id: "j", mode: Genius})
	if got, res := h.call("create_branch", map[string]any{"name": "fix"}); res.Failed {
		t.Fatalf("create_branch: %s (%v)", res.Output, got)
	}
	commit(t, r.wt, "c1")
	got, res := h.call("get_repo_state", map[string]any{})
	expect(t, got, res, "", map[string]any{"ahead": 1, "behind": 0, "comparedWith": "origin/main"})
}

// commit commits a new file in dir.
func commit(t *testing.T, dir, name string) {
	t.Helper()
	write(t, dir, map[string]string{name + ".txt": name + "\n"})
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "commit "+name)
}
