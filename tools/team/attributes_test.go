package team

import (
	"os/exec"
	"testing"
)

// TestJobCommitsWhatItsChecksTested (redteam s11 01, for jobs): a job's
// .gitattributes (ident, a conversion built into git) would make
// commit_changes commit other bytes than run_tests tested, and make an
// edit the conversion takes back no change to the tree state its checks
// are cached by. The commit holds the tree's bytes; the edit is a new
// tree state.
func TestJobCommitsWhatItsChecksTested(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not installed")
	}
	r := newRepo(t, map[string]string{"go.mod": goMod, "m.go": "package m\n\nfunc Inc(x int) int { return x + 1 }\n",
		"m_test.go": "package m\n\nimport \"testing\"\n\nfunc TestInc(t *testing.T) {\n\tif Inc(1) != 2 {\n\t\tt.Fatal(\"Inc(1) != 2\")\n\t}\n}\n"})
	base := runGit(t, r.wt, "rev-parse", "HEAD")
	job := &fakeJob{id: "a77c0de5", mode: Mechanic, base: base}
	h := newHarness(t, r.wt, job)
	h.call("create_branch", map[string]any{"name": "attrs"})
	tested := "package m\n\nfunc Inc(x int) int {\n\ty := x + 2\n\t/*$Id: */ y = x + 1 /*$*/\n\treturn y\n}\n"
	write(t, r.wt, map[string]string{".gitattributes": "*.go ident\n", "m.go": tested})
	got, res := h.call("commit_changes", map[string]any{"message": "fix(m): inc"})
	if got["committed"] != true || len(job.commits) != 1 {
		t.Fatalf("commit_changes = %s", res.Output)
	}
	if committed := runGit(t, r.wt, "cat-file", "blob", job.commits[0].Hash+":m.go") + "\n"; committed != tested {
		t.Errorf("the commit holds\n%s\nwhile the checks tested\n%s", committed, tested)
	}

	// The attributes are committed now, but not in the job's base: an
	// edit inside $Id: … $ is still a change to the tree state.
	w, err := openWorktree(t.Context(), h.s)
	if err != nil {
		t.Fatal(err)
	}
	before, err := w.treeState(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	write(t, r.wt, map[string]string{"m.go": "package m\n\nfunc Inc(x int) int {\n\ty := x + 2\n\t/*$Id: */ y = x + 3 /*$*/\n\treturn y\n}\n"})
	after, err := w.treeState(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	if before == after {
		t.Error("an edit git's ident conversion takes back left the tree state the checks are cached by unchanged")
	}
}
