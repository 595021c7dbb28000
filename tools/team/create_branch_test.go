package team

import (
	"strings"
	"testing"
)

func TestCreateBranch(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	runGit(t, r.user, "branch", "release")
	before := r.userState(t)
	job := &fakeJob{id: "0123456789abcdef", mode: Mechanic}
	h := newHarness(t, r.wt, job)
	tests := []struct {
		name string
		args map[string]any
		code string
		want map[string]any
	}{
		{"default base is origin's HEAD", map[string]any{"name": "fix-login"}, "",
			map[string]any{"branchName": "ai/01234567/fix-login", "basedOn": "origin/main", "created": true}},
		{"again: switches, not created", map[string]any{"name": "fix-login"}, "",
			map[string]any{"branchName": "ai/01234567/fix-login", "created": false}},
		{"the full name is accepted", map[string]any{"name": "ai/01234567/fix-login"}, "",
			map[string]any{"branchName": "ai/01234567/fix-login", "created": false}},
		{"explicit base", map[string]any{"name": "rel/fix", "baseBranch": "release"}, "",
			map[string]any{"branchName": "ai/01234567/rel/fix", "basedOn": "release", "created": true}},
		{"back to an existing branch", map[string]any{"name": "fix-login"}, "",
			map[string]any{"branchName": "ai/01234567/fix-login", "created": false}},
		{"unknown base", map[string]any{"name": "x", "baseBranch": "nope"}, "branch_error", map[string]any{"created": false}},
		{"option as base", map[string]any{"name": "x", "baseBranch": "--orphan"}, "branch_error", nil},
		{"dot dot", map[string]any{"name": "../../heads/main"}, "branch_error", nil},
		{"leading dash", map[string]any{"name": "-f"}, "branch_error", nil},
		{"lock suffix", map[string]any{"name": "x.lock"}, "branch_error", nil},
		{"space", map[string]any{"name": "a b"}, "branch_error", nil},
		{"reflog syntax", map[string]any{"name": "x@{1}"}, "branch_error", nil},
		{"shell metacharacters", map[string]any{"name": "x;rm -rf ~"}, "branch_error", nil},
		{"hidden component", map[string]any{"name": "a/.b"}, "branch_error", nil},
		{"control character", map[string]any{"name": "a\x01b"}, "branch_error", nil},
		{"empty", map[string]any{"name": ""}, "branch_error", nil},
		{"trailing slash", map[string]any{"name": "a/"}, "branch_error", nil},
		{"too long", map[string]any{"name": strings.Repeat("a", 101)}, "branch_error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, res := h.call("create_branch", tt.args)
			expect(t, got, res, tt.code, tt.want)
		})
	}
	if b := runGit(t, r.wt, "symbolic-ref", "--short", "HEAD"); b != "ai/01234567/fix-login" {
		t.Errorf("worktree is on %s", b)
	}
	if after := r.userState(t); after != before {
		t.Errorf("the user's working tree changed:\n%s\n%s", before, after)
	}
	if len(job.branches) != 5 || job.branches[0] != "ai/01234567/fix-login from origin/main" {
		t.Errorf("BranchCreated calls = %q", job.branches)
	}
	if n := runGit(t, r.user, "for-each-ref", "refs/heads/ai/"); strings.Count(n, "\n")+1 != 2 {
		t.Errorf("ai branches = %s", n)
	}
}

func TestCreateBranchDefaultBase(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, r repo)
		want  string
	}{
		{"origin/HEAD", func(*testing.T, repo) {}, "origin/main"},
		{"main without origin/HEAD", func(t *testing.T, r repo) { runGit(t, r.user, "remote", "set-head", "origin", "-d") }, "main"},
		{"master", func(t *testing.T, r repo) {
			runGit(t, r.user, "remote", "set-head", "origin", "-d")
			runGit(t, r.user, "branch", "-m", "main", "master")
		}, "master"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"a.txt": "a\n"})
			tt.setup(t, r)
			h := newHarness(t, r.wt, &fakeJob{id: "abc", mode: Genius})
			got, res := h.call("create_branch", map[string]any{"name": "n"})
			expect(t, got, res, "", map[string]any{"basedOn": tt.want, "branchName": "ai/abc/n", "created": true})
		})
	}
}

// TestCreateBranchRefusesTheUsersTree: in the main working tree nothing
// is checked out.
func TestCreateBranchRefusesTheUsersTree(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	before := r.userState(t)
	h := newHarness(t, r.user, &fakeJob{id: "abc", mode: Genius})
	got, res := h.call("create_branch", map[string]any{"name": "n"})
	expect(t, got, res, "branch_error", nil)
	if !strings.Contains(res.Output, "main working tree") {
		t.Errorf("refusal = %s", res.Output)
	}
	got, res = h.call("commit_changes", map[string]any{"message": "fix: x"})
	expect(t, got, res, CodeCommitError, nil)
	if after := r.userState(t); after != before {
		t.Errorf("the user's working tree changed:\n%s\n%s", before, after)
	}
}
