package git

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRecycledWorktreeIsAFreshCheckout (issue 35): the files of a removed
// workflow's worktree are kept and restored for the next workflow, which
// then writes only what differs — and whatever an agent did to them, the
// next worktree is identical to a fresh checkout (restored, or given up
// and checked out anew), and nothing outside it changed.
func TestRecycledWorktreeIsAFreshCheckout(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// attack works on the used worktree wt; outside is a folder
		// outside every worktree.
		attack func(t *testing.T, wt, outside string)
		// recycled: the untouched files must be the same inodes.
		recycled bool
	}{
		{"untouched", func(t *testing.T, wt, outside string) {}, true},
		{"planted untracked, ignored and nested repository", func(t *testing.T, wt, outside string) {
			writeFile(t, filepath.Join(wt, "planted.log"), "ignored\n")
			writeFile(t, filepath.Join(wt, "lib", "new.go"), "package lib\n")
			writeFile(t, filepath.Join(wt, "build", "deep", "out.bin"), "artifact\n")
			gitT(t, wt, "init", "-q", filepath.Join(wt, "nested"))
			writeFile(t, filepath.Join(wt, "nested", "x.txt"), "x\n")
		}, true},
		{"tracked directory replaced by a symlink outside", func(t *testing.T, wt, outside string) {
			writeFile(t, filepath.Join(outside, "lib.go"), "package evil\n")
			if err := os.RemoveAll(filepath.Join(wt, "lib")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(wt, "lib")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"fifos", func(t *testing.T, wt, outside string) {
			if err := syscall.Mkfifo(filepath.Join(wt, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(wt, "old.txt"))
			if err := syscall.Mkfifo(filepath.Join(wt, "old.txt"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"chmod 000 file", func(t *testing.T, wt, outside string) {
			if err := os.Chmod(filepath.Join(wt, "main.go"), 0); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"world-writable directory and executable file", func(t *testing.T, wt, outside string) {
			if err := os.Chmod(filepath.Join(wt, "lib"), 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(wt, "README.md"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"hard links in and out", func(t *testing.T, wt, outside string) {
			out := filepath.Join(outside, "linked")
			writeFile(t, out, "package main\n\nfunc main() {\n\tprintln(\"evil\")\n}\n")
			os.Remove(filepath.Join(wt, "main.go"))
			if err := os.Link(out, filepath.Join(wt, "main.go")); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(filepath.Join(wt, "old.txt"), filepath.Join(outside, "old-link")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"modified with its mtime restored", func(t *testing.T, wt, outside string) {
			p := filepath.Join(wt, "lib", "lib.go")
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			evil := bytes.Replace(data, []byte("One"), []byte("Evl"), 1)
			if err := os.WriteFile(p, evil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := userRepo(t)
			outside := t.TempDir()
			r := openRepo(t, dir)
			used, err := r.CreateWorkflow(ctx, "used", "main")
			if err != nil {
				t.Fatal(err)
			}
			before := inode(t, filepath.Join(used.Worktree, "old.txt"))
			tc.attack(t, used.Worktree, outside)
			outsideBefore := snapshotDir(t, outside)
			if err := r.RemoveWorkflow(ctx, "used", RemoveOptions{DeleteBranch: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(used.Worktree); !os.IsNotExist(err) {
				t.Fatalf("the used worktree %s is still there: %v", used.Worktree, err)
			}

			r2 := openRepo(t, dir) // as the next process would
			if err := r2.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
				t.Fatal(err)
			}
			next, err := r2.CreateWorkflow(ctx, "next", "main")
			if err != nil {
				t.Fatal(err)
			}
			if got := inode(t, filepath.Join(next.Worktree, "old.txt")); tc.recycled && got != before {
				t.Errorf("the used worktree's files were not recycled (old.txt inode %d, was %d)", got, before)
			}
			sameAsFreshCheckout(t, dir, next.Worktree)
			if after := snapshotDir(t, outside); after != outsideBefore {
				t.Errorf("the folder outside changed:\n%s\nwas:\n%s", after, outsideBefore)
			}
			if st := gitT(t, next.Worktree, "status", "--porcelain", "--ignored"); st != "" {
				t.Errorf("git status of the next worktree:\n%s", st)
			}
			if n := len(r2.spentTrees()); n != 0 {
				t.Errorf("%d spent trees left", n)
			}
		})
	}
}

// snapshotDir lists a folder's paths, modes and contents.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		fi, _ := d.Info()
		b.WriteString(rel + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			b.WriteString(" " + string(data))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}

// sameAsFreshCheckout compares the worktree with a fresh checkout of main
// made by git: the same paths, types, modes and contents, one link per
// file, nothing more (but the .git file).
func sameAsFreshCheckout(t *testing.T, dir, wt string) {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "ref")
	gitT(t, dir, "clone", "-q", "--no-hardlinks", "-b", "main", dir, ref)
	if err := os.RemoveAll(filepath.Join(ref, ".git")); err != nil {
		t.Fatal(err)
	}
	want, got := snapshotDir(t, ref), snapshotDirExcept(t, wt, ".git")
	if got != want {
		t.Errorf("the worktree differs from a fresh checkout:\n%s\nwant:\n%s", got, want)
	}
	_ = filepath.WalkDir(wt, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, _ := d.Info(); fi.Sys().(*syscall.Stat_t).Nlink != 1 {
				t.Errorf("%s has %d links", p, fi.Sys().(*syscall.Stat_t).Nlink)
			}
		}
		return nil
	})
}

func snapshotDirExcept(t *testing.T, dir, skip string) string {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "copy")
	if out, err := exec.Command("cp", "-a", dir, tmp).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v\n%s", err, out)
	}
	if err := os.Remove(filepath.Join(tmp, skip)); err != nil {
		t.Fatal(err)
	}
	return snapshotDir(t, tmp)
}

// TestStaleSpentTreeDeleted: a spent tree nobody took for a day is
// deleted, not restored; at most maxSpent are kept.
func TestStaleSpentTreeDeleted(t *testing.T) {
	ctx := context.Background()
	dir, _ := userRepo(t)
	r := openRepo(t, dir)
	for _, name := range []string{"one", "two"} {
		if _, err := r.CreateWorkflow(ctx, name, "main"); err != nil {
			t.Fatal(err)
		}
		if err := r.RemoveWorkflow(ctx, name, RemoveOptions{DeleteBranch: true}); err != nil {
			t.Fatal(err)
		}
	}
	spent := r.spentTrees()
	if len(spent) != maxSpent {
		t.Fatalf("%d spent trees kept, want %d", len(spent), maxSpent)
	}
	old := time.Now().Add(-2 * staleSpent)
	if err := os.Chtimes(filepath.Join(spent[0], "complete"), old, old); err != nil {
		t.Fatal(err)
	}
	before := inode(t, filepath.Join(spent[0], "tree", "old.txt"))
	if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
		t.Fatal(err)
	}
	next, err := r.CreateWorkflow(ctx, "next", "main")
	if err != nil {
		t.Fatal(err)
	}
	if inode(t, filepath.Join(next.Worktree, "old.txt")) == before {
		t.Error("a stale spent tree was restored")
	}
	if _, err := os.Stat(spent[0]); !os.IsNotExist(err) {
		t.Errorf("the stale spent tree %s is still there: %v", spent[0], err)
	}
}
