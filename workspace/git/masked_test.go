package git

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

const maskedSecret = "SECRET_VALUE_5e4d3c2b1a0f9e8d"

// secretRepo is a repository with a clean file and a committed .env.
func secretRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	gitT(t, t.TempDir(), "init", "-q", "-b", "main", dir)
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n")
	writeFile(t, filepath.Join(dir, ".env"), "API="+maskedSecret+"\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "one")
	r, err := Open(context.Background(), dir, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

// inView reports whether the object rev names (in the real repository)
// is in the store's view.
func inView(t *testing.T, dir string, v View, rev string) bool {
	t.Helper()
	oid := gitT(t, dir, "rev-parse", rev)
	cmd := exec.Command("git", "-C", dir, "--no-replace-objects", "cat-file", "-e", oid)
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+v.Objects)
	return cmd.Run() == nil
}

// viewOutput runs git in dir seeing only the view's objects.
func viewOutput(t *testing.T, dir string, v View, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "--no-replace-objects"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+v.Objects)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func updateStore(t *testing.T, s *SandboxObjects) View {
	t.Helper()
	v, err := s.Update(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSandboxObjectsWithholds: every history change that gives a secret
// blob a blocked path, or a blocked content, withholds it, on a full build
// and on incremental updates; clean objects stay.
func TestSandboxObjectsWithholds(t *testing.T) {
	r, dir := secretRepo(t)
	s := r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	v := updateStore(t, s)
	if inView(t, dir, v, "HEAD:.env") || !inView(t, dir, v, "HEAD:main.go") || !inView(t, dir, v, "HEAD") {
		t.Fatal("first build: .env must be withheld, main.go and the commit kept")
	}
	gen := v.Objects

	// A clean blob renamed to a blocked path: already packed, so the
	// generation is rebuilt without it.
	writeFile(t, filepath.Join(dir, "notes.txt"), "just notes "+maskedSecret+"\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "notes")
	v = updateStore(t, s)
	if v.Objects != gen || !inView(t, dir, v, "HEAD:notes.txt") {
		t.Fatalf("a clean commit: want an incremental update of %s with notes.txt, got %s", gen, v.Objects)
	}
	gitT(t, dir, "mv", "notes.txt", "prod.secrets")
	gitT(t, dir, "commit", "-q", "-m", "rename")
	v = updateStore(t, s)
	if v.Objects == gen || inView(t, dir, v, "HEAD:prod.secrets") || inView(t, dir, v, "HEAD~1:notes.txt") {
		t.Fatalf("a renamed secret: want a rebuilt generation without it, got %s", v.Objects)
	}
	if _, err := os.Stat(gen); err != nil {
		t.Errorf("the previous generation %s is removed while a command may read it: %v", gen, err)
	}

	// New secrets by content and in an archive, incrementally.
	gen = v.Objects
	writeFile(t, filepath.Join(dir, "conf.ini"), "aws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY\"\n")
	writeFile(t, filepath.Join(dir, "b.txt"), "clean\n")
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "key")
	v = updateStore(t, s)
	if v.Objects != gen || inView(t, dir, v, "HEAD:conf.ini") || !inView(t, dir, v, "HEAD:b.txt") {
		t.Fatal("a secret by content: want it withheld incrementally, b.txt kept")
	}
	// A staged, uncommitted .env.local is withheld; the index's clean blobs are kept.
	writeFile(t, filepath.Join(dir, ".env.local"), "X="+maskedSecret+"\n")
	writeFile(t, filepath.Join(dir, "staged.txt"), "staged\n")
	gitT(t, dir, "add", "-A")
	v = updateStore(t, s)
	if inView(t, dir, v, ":.env.local") || !inView(t, dir, v, ":staged.txt") {
		t.Fatal("the index: .env.local must be withheld, staged.txt kept")
	}
	if reason, ok := s.Withheld(gitT(t, dir, "rev-parse", "HEAD~3:.env")); !ok || !strings.Contains(reason, ".env") {
		t.Errorf("Withheld(.env) = %q, %v", reason, ok)
	}
	for _, args := range [][]string{{"log", "-p", "--all"}, {"cat-file", "--batch-all-objects", "--batch"}, {"fast-export", "--all"}} {
		if out := viewOutput(t, dir, v, args...); strings.Contains(out, maskedSecret) || strings.Contains(out, "wJalrXUtnFEMI") {
			t.Errorf("git %v over the view prints the secret", args)
		}
	}
	// A replace ref points the withheld blob at the placeholder.
	if data, err := os.ReadFile(filepath.Join(v.ReplaceRefs, gitT(t, dir, "rev-parse", "HEAD~3:.env"))); err != nil || len(strings.TrimSpace(string(data))) != 40 {
		t.Errorf("no replace ref for the withheld .env: %q, %v", data, err)
	}
}

// TestSandboxObjectsUnchangedIsCheap: with no ref or index change, an
// update is a lookup and the view is the same.
func TestSandboxObjectsUnchangedIsCheap(t *testing.T) {
	r, _ := secretRepo(t)
	s := r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	v1 := updateStore(t, s)
	st1, _ := os.ReadFile(filepath.Join(s.Dir(), "state.json"))
	v2 := updateStore(t, s)
	st2, _ := os.ReadFile(filepath.Join(s.Dir(), "state.json"))
	if v1 != v2 || string(st1) != string(st2) {
		t.Errorf("an update without changes rewrote the store: %v → %v", v1, v2)
	}
	// Other rules: a store of their own; the first one stays.
	v3 := updateStore(t, r.SandboxObjects(workspace.DefaultGate(), "other rules", 4<<20))
	if v3.Objects == v1.Objects {
		t.Error("a store built with other rules was reused")
	}
	if v4 := updateStore(t, s); v4 != v1 {
		t.Errorf("the first rules' store was rebuilt after another's: %v → %v", v1, v4)
	}
}

// TestSandboxObjectsConcurrentAndInterrupted: sessions updating at once
// agree on one store; leftovers of a killed update (a temporary
// generation, a half-written state file, a stray pack temp file) neither
// break the next update nor survive a rebuild.
func TestSandboxObjectsConcurrentAndInterrupted(t *testing.T) {
	r, dir := secretRepo(t)
	s := r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20)
	var wg sync.WaitGroup
	views := make([]View, 6)
	errs := make([]error, 6)
	for i := range views {
		wg.Add(1)
		go func() {
			defer wg.Done()
			views[i], errs[i] = r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20).Update(context.Background())
		}()
	}
	wg.Wait()
	for i := range views {
		if errs[i] != nil || views[i] != views[0] {
			t.Fatalf("concurrent updates disagree: %v %v / %v", views[i], errs[i], views[0])
		}
	}
	// A killed update.
	if err := os.MkdirAll(filepath.Join(s.Dir(), "tmp-killed", "pack"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.Dir(), "state.json"), `{"version":1,"rules":"test","gen":"gen-`)
	v := updateStore(t, s)
	if inView(t, dir, v, "HEAD:.env") || !inView(t, dir, v, "HEAD:main.go") {
		t.Fatal("after a killed update: wrong view")
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "tmp-killed")); err == nil {
		t.Error("a killed update's temporary directory survived the rebuild")
	}
}

// TestSandboxObjectsWorktreeBeingAdded: while git worktree add runs, the
// new worktree's HEAD holds the null id; an update at that moment covers
// the other tips instead of failing (CI: "bad object 0000…").
func TestSandboxObjectsWorktreeBeingAdded(t *testing.T) {
	r, dir := secretRepo(t)
	wt := filepath.Join(dir, ".git", "worktrees", "adding")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(wt, "HEAD"), strings.Repeat("0", 40)+"\n")
	writeFile(t, filepath.Join(wt, "commondir"), "../..\n")
	writeFile(t, filepath.Join(wt, "gitdir"), filepath.Join(t.TempDir(), "adding", ".git")+"\n")
	v := updateStore(t, r.SandboxObjects(workspace.DefaultGate(), "test", 4<<20))
	if !inView(t, dir, v, "HEAD:main.go") {
		t.Error("the store lacks the branch's objects")
	}
}
