package indexsearch

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
	"github.com/autarch-dev/autarch/workspace/git"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestOverlayWorktreeScope: a worktree's search answers from the main index
// for shared files and from its own small index for the files it changed,
// added or deleted; the main index is neither rebuilt nor changed.
func TestOverlayWorktreeScope(t *testing.T) {
	ctx := context.Background()
	top := t.TempDir()
	files := map[string]string{
		"auth/login.go":   "package auth\n\n// Login checks a password.\nfunc Login() {}\n",
		"auth/logout.go":  "package auth\n\n// Logout ends the session.\nfunc Logout() {}\n",
		"billing/bill.go": "package billing\n\n// Bill charges a card.\nfunc Bill() {}\n",
	}
	for i := range 50 { // unchanged files the worktree must not re-index
		files[filepath.Join("pkg", "f"+string(rune('a'+i%26))+string(rune('a'+i/26))+".go")] = "package pkg\n\n// Helper does plumbing.\nfunc Helper() {}\n"
	}
	for rel, content := range files {
		p := filepath.Join(top, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	gitIn(t, top, "init", "-q", "-b", "main")
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "-c", "user.name=U", "-c", "user.email=u@example.com", "commit", "-q", "-m", "initial")
	mainRoot, _ := workspace.Open(top)
	main := index.New(mainRoot)
	if err := main.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	before := main.Stats()

	wt := filepath.Join(t.TempDir(), "wt")
	gitIn(t, top, "worktree", "add", "-q", "-b", "pulse", wt)
	os.WriteFile(filepath.Join(wt, "auth", "login.go"), []byte("package auth\n\n// Login verifies a hardware token.\nfunc Login() {}\n"), 0o644)
	os.WriteFile(filepath.Join(wt, "auth", "totp.go"), []byte("package auth\n\n// TOTP computes a hardware token code.\nfunc TOTP() {}\n"), 0o644)
	os.Remove(filepath.Join(wt, "billing", "bill.go"))

	repo, err := git.Open(ctx, top, git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	wtRoot, _ := workspace.Open(wt)
	var asked int
	changes := WorktreeChanges(repo, wt)
	o := &Overlay{Main: main, Root: wtRoot, Changed: func(ctx context.Context) ([]string, error) {
		asked++
		return changes(ctx)
	}}
	search := func(q string) []string {
		t.Helper()
		hits, st, err := o.Search(ctx, tools.SearchRequest{Query: q, MaxResults: 10})
		if err != nil || !st.Indexed {
			t.Fatalf("search %q: %v (indexed %v)", q, err, st.Indexed)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.FilePath)
		}
		return out
	}
	if got := search("hardware token"); !slices.Contains(got, "auth/login.go") || !slices.Contains(got, "auth/totp.go") {
		t.Errorf("worktree search for its new content = %v", got)
	}
	// The changed file may still match by meaning (the trained vectors
	// relate "password" to Login), but never with the main copy's text.
	hits, _, err := o.Search(ctx, tools.SearchRequest{Query: "checks a password", MaxResults: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Snippet, "checks a password") {
			t.Errorf("worktree search still finds the main copy of a changed file: %+v", h)
		}
	}
	if got := search("charges a card"); slices.Contains(got, "billing/bill.go") {
		t.Errorf("worktree search finds a file the worktree deleted: %v", got)
	}
	if got := search("ends the session"); !slices.Contains(got, "auth/logout.go") {
		t.Errorf("worktree search misses an unchanged file: %v", got)
	}
	if st := o.small.Stats(); st.Files != 2 {
		t.Errorf("the worktree's own index holds %d files, want the 2 that differ", st.Files)
	}
	if after := main.Stats(); after.Files != before.Files || after.Chunks != before.Chunks {
		t.Errorf("the main index changed: %+v → %+v", before, after)
	}
	// Reverting a change drops it from the worktree's index.
	os.WriteFile(filepath.Join(wt, "auth", "login.go"), []byte(files["auth/login.go"]), 0o644)
	if got := search("checks a password"); !slices.Contains(got, "auth/login.go") {
		t.Errorf("after a revert, search = %v", got)
	}
	if asked == 0 {
		t.Error("Changed was never consulted")
	}
}
