package team

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/verify"
)

const goMod = "module example.com/m\n\ngo 1.22\n"

// TestCommitChanges walks commit_changes through its refusals to a
// commit, on a Go project whose test fails until it is fixed.
func TestCommitChanges(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	r := newRepo(t, map[string]string{"go.mod": goMod, "m.go": "package m\n\nfunc Inc(x int) int { return x + 1 }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestInc(t *testing.T) {\n\tif Inc(1) != 2 {\n\t\tt.Fatal(\"Inc(1) != 2\")\n\t}\n}\n"})
	before := r.userState(t)
	job := &fakeJob{id: "feedc0de99", mode: Mechanic}
	h := newHarness(t, r.wt, job)
	breakIt := "--- a/m.go\n+++ b/m.go\n@@ -3 +3 @@\n-func Inc(x int) int { return x + 1 }\n+func Inc(x int) int { return x + 2 }\n"
	fixIt := "--- a/m.go\n+++ b/m.go\n@@ -3 +3 @@\n-func Inc(x int) int { return x + 2 }\n+func Inc(x int) int { return 1 + x }\n"
	steps := []struct {
		name string
		tool string
		args map[string]any
		code string
		want map[string]any
		msg  string
	}{
		{"before create_branch", "commit_changes", map[string]any{"message": "fix: x"}, CodeCommitError, nil, "call create_branch"},
		{"create_branch", "create_branch", map[string]any{"name": "inc"}, "", map[string]any{"created": true}, ""},
		{"nothing to commit", "commit_changes", map[string]any{"message": "fix: x"}, CodeNothingToCommit, map[string]any{"committed": false, "branch": "ai/feedc0de/inc"}, ""},
		{"break it", "apply_patch", map[string]any{"patch": breakIt}, "", map[string]any{"applied": true}, ""},
		{"not a Conventional Commit", "commit_changes", map[string]any{"message": "changed stuff"}, CodeCommitError, nil, "Conventional Commit"},
		{"unknown type", "commit_changes", map[string]any{"message": "wip: inc"}, CodeCommitError, nil, "not accepted"},
		{"tests fail: refused", "commit_changes", map[string]any{"message": "fix(m): inc"}, CodeCommitError, map[string]any{"failedChecks": []string{"run_tests (fail)"}}, "run_tests (fail) did not pass"},
		{"fix it", "apply_patch", map[string]any{"patch": fixIt}, "", map[string]any{"applied": true}, ""},
		// the checks run afresh on the fixed tree: the commit carries their passing results
		{"commit", "commit_changes", map[string]any{"message": "fix(m): inc adds one\n\nThe body."}, "", map[string]any{"committed": true, "filesCommitted": 1, "branch": "ai/feedc0de/inc"}, `"status":"pass"}},"commitHash"`},
		{"nothing left", "commit_changes", map[string]any{"message": "fix: again"}, CodeNothingToCommit, nil, ""},
	}
	for _, st := range steps {
		got, res := h.call(st.tool, st.args)
		t.Run(st.name, func(t *testing.T) {
			expect(t, got, res, st.code, st.want)
			if st.msg != "" && !strings.Contains(res.Output, st.msg) {
				t.Errorf("result does not say %q: %s", st.msg, res.Output)
			}
		})
	}
	if len(job.commits) != 1 {
		t.Fatalf("Committed calls = %+v", job.commits)
	}
	c := job.commits[0]
	if c.Branch != "ai/feedc0de/inc" || c.Files != 1 || c.Message != "fix(m): inc adds one\n\nThe body.\n" {
		t.Errorf("commit = %+v", c)
	}
	if head := runGit(t, r.user, "rev-parse", "ai/feedc0de/inc"); head != c.Hash {
		t.Errorf("branch head %s, committed %s", head, c.Hash)
	}
	if msg := runGit(t, r.user, "log", "-1", "--format=%B", c.Hash); msg != "fix(m): inc adds one\n\nThe body." {
		t.Errorf("commit message = %q", msg)
	}
	if after := r.userState(t); after != before {
		t.Errorf("the user's working tree changed:\n%s\n%s", before, after)
	}
}

// TestCommitChangesCachesByTree: a tree run_tests and run_lint judged is
// not judged again; a changed tree is.
func TestCommitChangesCachesByTree(t *testing.T) {
	r := newRepo(t, map[string]string{"a.txt": "a\n"})
	h := newHarness(t, r.wt, &fakeJob{id: "cafe", mode: Genius})
	h.call("create_branch", map[string]any{"name": "c"})
	w, err := openWorktree(t.Context(), h.s)
	if err != nil {
		t.Fatal(err)
	}
	s1, err := w.treeState(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.wt, map[string]string{"b.txt": "b\n"})
	s2, _ := w.treeState(t.Context(), "HEAD")
	write(t, r.wt, map[string]string{"b.txt": "B\n"})
	s3, _ := w.treeState(t.Context(), "HEAD")
	write(t, r.wt, map[string]string{"a.txt": "A\n"})
	s4, _ := w.treeState(t.Context(), "HEAD")
	s5, _ := w.treeState(t.Context(), "HEAD")
	if s1 == s2 || s2 == s3 || s3 == s4 || s4 != s5 {
		t.Errorf("tree states: %s %s %s %s %s", s1, s2, s3, s4, s5)
	}
	if st := runGit(t, r.wt, "diff", "--cached", "--name-only"); st != "" {
		t.Errorf("treeState staged %s", st)
	}
}

// countingCheck is a verification tool that passes and counts its runs.
type countingCheck struct {
	tools.Tool
	runs *int
}

func (c countingCheck) Run(context.Context, *tools.Session, json.RawMessage) (tools.Result, error) {
	*c.runs++
	return tools.JSONResult(map[string]any{"status": "pass"}, false), nil
}

func TestCommitVerifiesOncePerTree(t *testing.T) {
	r := newRepo(t, map[string]string{"go.mod": goMod, "m.go": "package m\n"})
	h := newHarness(t, r.wt, &fakeJob{id: "cafe", mode: Genius})
	var tests, lints int
	reg, _ := Registry(nil, Deps{})
	cache := newCheckCache()
	c := committer{checks: cache, verifiers: []verifier{
		{name: "run_tests", kind: verify.Test, tool: countingCheck{must(reg.Get("run_tests")), &tests}},
		{name: "run_lint", kind: verify.Lint, tool: countingCheck{must(reg.Get("run_lint")), &lints}},
	}}
	w, _ := openWorktree(t.Context(), h.s)
	verifyNow := func() {
		t.Helper()
		state, err := w.treeState(t.Context(), "HEAD")
		if err != nil {
			t.Fatal(err)
		}
		if failed, _, _, _, err := c.verify(t.Context(), h.s, state); err != nil || len(failed) > 0 {
			t.Fatalf("verify = %v, %v", failed, err)
		}
	}
	verifyNow()
	verifyNow()
	if tests != 1 || lints != 1 {
		t.Errorf("an unchanged tree was verified again: tests %d, lints %d runs", tests, lints)
	}
	write(t, r.wt, map[string]string{"m.go": "package m\n\nvar X = 1\n"})
	verifyNow()
	if tests != 2 || lints != 2 {
		t.Errorf("a changed tree was not verified again: tests %d, lints %d runs", tests, lints)
	}
	// A whole-project run_tests through the catalog's recording wrapper
	// fills the cache for its tree.
	rec := cache.recording(countingCheck{must(reg.Get("run_tests")), &tests})
	write(t, r.wt, map[string]string{"m.go": "package m\n\nvar X = 2\n"})
	rec.Run(t.Context(), h.s, json.RawMessage(`{"reason":"r"}`))
	verifyNow()
	if tests != 3 || lints != 3 {
		t.Errorf("run_tests' own verdict was not reused: tests %d, lints %d runs", tests, lints)
	}
}

// TestCommitChangesWithoutATestRunner (003-30: commit_changes REQUIRES
// tests; never skip them): with no detected test runner, the quality
// gates' configured test command verifies the commit; with none either,
// the job asks the user once, and commits only if they allow it.
func TestCommitChangesWithoutATestRunner(t *testing.T) {
	tests := []struct {
		name       string
		command    string // guardrails.quality_gates.commands.test ("": none)
		approve    bool
		committed  bool
		asked      int
		wantOutput string
	}{
		{"nothing configured, the user refuses", "", false, false, 1, "the user did not allow commits without tests"},
		{"nothing configured, the user allows", "", true, true, 1, `"run_tests":{"note":"no test runner detected or configured; the user allowed commits without tests","status":"skipped"}`},
		{"a configured test command fails", "echo 'FAIL: make test' >&2; exit 2", true, false, 0, "run_tests (echo"},
		{"a configured test command passes", "echo ok", false, true, 0, `"committed":true`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t, map[string]string{"Makefile": "test:\n\ttrue\n"})
			job := &fakeJob{id: "feedc0de99", mode: Genius, approve: tt.approve}
			h := newHarness(t, r.wt, job)
			g, err := tools.LoadGuardrails(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tt.command != "" {
				g.SetQuality(tools.Quality{Gates: verify.Gates{Commands: map[verify.Kind]string{verify.Test: tt.command}}})
			}
			h.e.WithGuardrails(g)
			h.call("create_branch", map[string]any{"name": "x"})
			write(t, r.wt, map[string]string{"a.txt": "a\n"})
			got, res := h.call("commit_changes", map[string]any{"message": "feat: a"})
			if got["committed"] != tt.committed || !strings.Contains(res.Output, tt.wantOutput) {
				t.Errorf("committed = %v, want %v; output lacks %q: %s", got["committed"], tt.committed, tt.wantOutput, res.Output)
			}
			if tt.committed {
				// Allowed once: the next commit does not ask again.
				write(t, r.wt, map[string]string{"b.txt": "b\n"})
				if got, res := h.call("commit_changes", map[string]any{"message": "feat: b"}); got["committed"] != true {
					t.Errorf("second commit: %s", res.Output)
				}
			}
			if len(job.escalation) != tt.asked {
				t.Errorf("asked the user %d times, want %d: %+v", len(job.escalation), tt.asked, job.escalation)
			}
		})
	}
}
