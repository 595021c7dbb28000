package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// realDir is dir with symlinks resolved (t.TempDir may sit under one).
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLocationTrustsOnlyRealGitDirs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cache := realDir(t)
	t.Setenv("XDG_CACHE_HOME", cache)
	elsewhere := filepath.Join(realDir(t), "elsewhere")
	git(t, filepath.Dir(elsewhere), "init", "-q", "--bare", elsewhere) // a real git dir, not ours
	notGit := realDir(t)

	// A repository with a linked worktree and a submodule.
	main := filepath.Join(realDir(t), "main")
	os.MkdirAll(main, 0o755)
	git(t, main, "init", "-q")
	os.WriteFile(filepath.Join(main, "a.go"), []byte("package a\n"), 0o644)
	git(t, main, "add", ".")
	git(t, main, "commit", "-q", "-m", "a")
	linked := filepath.Join(filepath.Dir(main), "linked")
	git(t, main, "worktree", "add", "-q", linked)
	git(t, main, "submodule", "add", "-q", main, "sub")

	// gitFile is a new plain folder whose .git file says what content
	// returns for the folder.
	gitFile := func(content func(d string) string) func(t *testing.T) string {
		return func(t *testing.T) string {
			d := realDir(t)
			os.WriteFile(filepath.Join(d, ".git"), []byte(content(d)), 0o644)
			return d
		}
	}
	tests := []struct {
		name  string
		setup func(t *testing.T) string // returns the workspace root
		want  string                    // prefix of the location; "" means the cache
	}{
		{"git repository", func(t *testing.T) string { return main }, filepath.Join(main, ".git", "autarch", "index")},
		{"linked worktree", func(t *testing.T) string { return linked }, filepath.Join(main, ".git", "worktrees", "linked", "autarch", "index")},
		{"submodule", func(t *testing.T) string { return filepath.Join(main, "sub") }, filepath.Join(main, ".git", "modules", "sub", "autarch", "index")},
		{"plain folder", func(t *testing.T) string { return realDir(t) }, ""},
		{"gitdir file to another repository", gitFile(func(string) string { return "gitdir: " + elsewhere + "\n" }), ""},
		{"relative gitdir file to another repository", gitFile(func(d string) string {
			rel, _ := filepath.Rel(d, elsewhere)
			return "gitdir: " + rel + "\n"
		}), ""},
		{"gitdir file to a folder", gitFile(func(string) string { return "gitdir: " + notGit + "\n" }), ""},
		{"gitdir file copied from a linked worktree", gitFile(func(string) string {
			data, _ := os.ReadFile(filepath.Join(linked, ".git"))
			return string(data)
		}), ""},
		{".git symlink to another repository", func(t *testing.T) string {
			d := realDir(t)
			os.Symlink(elsewhere, filepath.Join(d, ".git"))
			return d
		}, ""},
		{".git folder that is no git dir", func(t *testing.T) string {
			d := realDir(t)
			os.MkdirAll(filepath.Join(d, ".git"), 0o755)
			return d
		}, ""},
		{".git FIFO", func(t *testing.T) string {
			d := realDir(t)
			if err := syscall.Mkfifo(filepath.Join(d, ".git"), 0o644); err != nil {
				t.Fatal(err)
			}
			return d
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tt.setup(t)
			done := make(chan struct{})
			var got string
			var err error
			go func() { defer close(done); got, err = Location(root) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Location did not return within 10s")
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = filepath.Join(cache, "autarch", "index", filepath.Base(root)+"-")
			}
			if !strings.HasPrefix(got, want) {
				t.Fatalf("Location(%s) = %s, want %s…", root, got, want)
			}
		})
	}
}

// TestIndexNotWrittenThroughGitFile builds and saves the index of a
// workspace whose .git file names another repository's git dir: nothing
// may be written there. A FIFO in the workspace must not hang the build.
func TestIndexNotWrittenThroughGitFile(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", realDir(t))
	elsewhere := filepath.Join(realDir(t), "elsewhere")
	for _, d := range []string{"objects", "refs"} {
		os.MkdirAll(filepath.Join(elsewhere, d), 0o755)
	}
	os.WriteFile(filepath.Join(elsewhere, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	dir := realDir(t)
	os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+elsewhere+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nfunc Hello() {}\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := workspace.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	loc, err := Location(r.Dir())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		ix := New(r)
		if err := ix.Build(t.Context(), nil); err != nil {
			done <- err
			return
		}
		done <- ix.Save(loc)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("indexing a workspace with a FIFO did not finish within 20s")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "autarch")); !os.IsNotExist(err) {
		t.Fatalf("the index was written under %s (%v)", elsewhere, err)
	}
	if _, err := os.Stat(filepath.Join(loc, indexFile)); err != nil {
		t.Fatalf("no index at %s: %v", loc, err)
	}
}
