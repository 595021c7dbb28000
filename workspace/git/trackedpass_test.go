package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTrackedPassesAsGit (issue 35): a worktree's status and its changed
// paths, which git computes only for the files a stat against the index
// cannot prove unchanged, are what git's pass over the whole tree says,
// whatever changed: content (also of the same size with the mtime put
// back), a deletion, a mode, a file turned symbolic link or folder, a
// file rewritten in the clock tick the index was written (racily clean),
// and nothing at all.
func TestTrackedPassesAsGit(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	wf, err := r.CreateWorkflow(ctx, "asgit", "main")
	if err != nil {
		t.Fatal(err)
	}
	wt := wf.Worktree
	at := func(p string) string { return filepath.Join(wt, filepath.FromSlash(p)) }
	check := func(step string) {
		t.Helper()
		st, err := wf.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, f := range strings.Split(gitT(t, wt, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=all"), "\x00") {
			if len(f) > 3 {
				want = append(want, f[3:])
			}
		}
		if got := st.TrackedChanges(); !slices.Equal(got, want) {
			t.Errorf("%s: status of the tracked files %q, git status %q", step, got, want)
		}
		changed, err := wf.ChangedPaths(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if full, err := r.ChangedPaths(ctx, wt, wf.Branch); err != nil || !slices.Equal(changed, full) {
			t.Errorf("%s: changed paths %q, git's whole-tree pass %q (%v)", step, changed, full, err)
		}
	}
	check("nothing changed")
	writeFile(t, at("README.md"), "# projecT\n")
	check("an edit")
	fi, err := os.Stat(at("main.go"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(at("main.go"))
	writeFile(t, at("main.go"), strings.Replace(string(data), "hi", "ho", 1))
	if err := os.Chtimes(at("main.go"), fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("same size, mtime put back")
	if err := os.Remove(at("old.txt")); err != nil {
		t.Fatal(err)
	}
	check("a deletion")
	if err := os.Chmod(at("lib/lib.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("a mode")
	if err := os.Remove(at(".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("README.md", at(".gitignore")); err != nil {
		t.Fatal(err)
	}
	check("a file turned symbolic link")
	gitT(t, wt, "checkout", "--", ".")
	check("all put back")
	// Rewritten in the tick git writes the index: only content tells.
	for range 20 {
		racy := "# racy " + time.Now().String() + "\n"
		writeFile(t, at("README.md"), racy)
		gitT(t, wt, "add", "README.md")
		writeFile(t, at("README.md"), strings.ToUpper(racy)) // same size, maybe the same mtime
		check("racily clean")
	}
	gitT(t, wt, "reset", "-q", "--hard")
	if err := os.Remove(at("lib/lib.go")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, at("lib/lib.go/inside"), "now a folder\n")
	check("a file turned folder")
}
