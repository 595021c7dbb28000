package git

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecycledTreeKeepsNothingPlanted (redteam s10): whatever an agent's
// commands leave in a workflow's tree, the next workflow's tree, restored
// from it, is exactly a fresh checkout: no untracked or ignored file (a
// planted node_modules/.bin, .venv, __pycache__, go.work, .envrc), no
// folder turned symlink or FIFO, no nested repository or gitfile, no
// tracked file rewritten in place — through a hard link, a rename, with its
// size and modification time kept, its mode changed — survives.
func TestRecycledTreeKeepsNothingPlanted(t *testing.T) {
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "lib.go"), "package lib\n\n// EVIL\n")
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, top string)
	}{
		{"untracked and ignored files", func(t *testing.T, top string) {
			for _, p := range []string{"node_modules/.bin/go", ".venv/bin/activate", "__pycache__/main.cpython-311.pyc", "go.work", ".envrc", "debug.log", "lib/__pycache__/x.pyc", ".autarch/config.yaml", ".mcp.json", "AGENTS.md"} {
				writeFile(t, filepath.Join(top, p), "evil\n")
			}
		}},
		{"folder turned symlink", func(t *testing.T, top string) {
			must(t, os.RemoveAll(filepath.Join(top, "lib")))
			must(t, os.Symlink(outside, filepath.Join(top, "lib")))
		}},
		{"file and folder turned FIFO", func(t *testing.T, top string) {
			must(t, os.Remove(filepath.Join(top, "main.go")))
			must(t, syscall.Mkfifo(filepath.Join(top, "main.go"), 0o644))
			must(t, os.RemoveAll(filepath.Join(top, "lib")))
			must(t, syscall.Mkfifo(filepath.Join(top, "lib"), 0o644))
		}},
		{"file turned symlink", func(t *testing.T, top string) {
			must(t, os.Remove(filepath.Join(top, "main.go")))
			must(t, os.Symlink(filepath.Join(outside, "lib.go"), filepath.Join(top, "main.go")))
		}},
		{"nested repository in a tracked folder", func(t *testing.T, top string) {
			gitT(t, filepath.Join(top, "lib"), "init", "-q")
			writeFile(t, filepath.Join(top, "lib", "evil.go"), "package lib\n")
		}},
		{"nested repository and gitfile in new folders", func(t *testing.T, top string) {
			gitT(t, top, "init", "-q", "vendor/x")
			writeFile(t, filepath.Join(top, "vendor", "x", "x.go"), "package x\n")
			writeFile(t, filepath.Join(top, "sub", ".git"), "gitdir: "+outside+"\n")
		}},
		{"hard link written with size and mtime kept", func(t *testing.T, top string) {
			must(t, os.MkdirAll(filepath.Join(top, "node_modules"), 0o755))
			must(t, os.Link(filepath.Join(top, "lib", "lib.go"), filepath.Join(top, "node_modules", "l")))
			rewriteKept(t, filepath.Join(top, "node_modules", "l"))
		}},
		{"hard link written and removed", func(t *testing.T, top string) {
			must(t, os.MkdirAll(filepath.Join(top, "other"), 0o755))
			must(t, os.Link(filepath.Join(top, "lib", "lib.go"), filepath.Join(top, "other", "l")))
			rewriteKept(t, filepath.Join(top, "other", "l"))
			must(t, os.RemoveAll(filepath.Join(top, "other")))
		}},
		{"rename over a tracked file, times kept", func(t *testing.T, top string) {
			p := filepath.Join(top, "lib", "lib.go")
			fi, err := os.Lstat(p)
			must(t, err)
			data, err := os.ReadFile(p)
			must(t, err)
			n := filepath.Join(top, "lib", "new")
			must(t, os.WriteFile(n, []byte(strings.ToUpper(string(data))), 0o644))
			must(t, os.Chtimes(n, fi.ModTime(), fi.ModTime()))
			must(t, os.Rename(n, p))
		}},
		{"rewritten in place, size and mtime kept", func(t *testing.T, top string) {
			for _, p := range []string{"README.md", "main.go", "lib/lib.go", ".gitignore"} {
				rewriteKept(t, filepath.Join(top, p))
			}
		}},
		{"mode changed", func(t *testing.T, top string) {
			must(t, os.Chmod(filepath.Join(top, "main.go"), 0o755))
			must(t, os.Chmod(filepath.Join(top, "lib"), 0o2777))
		}},
		{"moved out and back", func(t *testing.T, top string) {
			rewriteKept(t, filepath.Join(top, "lib", "lib.go"))
			must(t, os.Rename(filepath.Join(top, "lib"), filepath.Join(top, "lib2")))
			must(t, os.Rename(filepath.Join(top, "lib2"), filepath.Join(top, "lib")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			dir, _ := userRepo(t)
			r := openRepo(t, dir)
			wf, err := r.CreateWorkflow(ctx, "w0", "main")
			if err != nil {
				t.Fatal(err)
			}
			// The index records every file unsmudged, as after a status
			// refresh in a workflow that lasts more than a second: only
			// stat data then tells a planted file from a checked-out one.
			old := time.Now().Add(-time.Hour)
			for _, p := range strings.Split(gitT(t, wf.Worktree, "ls-files"), "\n") {
				must(t, os.Chtimes(filepath.Join(wf.Worktree, p), old, old))
			}
			gitT(t, wf.Worktree, "update-index", "--refresh")
			var kept syscall.Stat_t // restored, the folder is the same
			must(t, syscall.Stat(filepath.Join(wf.Worktree, "lib"), &kept))
			tc.plant(t, wf.Worktree)
			if err := r.RemoveWorkflow(ctx, "w0", RemoveOptions{DeleteBranch: true}); err != nil {
				t.Fatal(err)
			}
			if len(r.spentTrees()) != 1 {
				t.Fatalf("the tree was not kept as a spent tree")
			}
			if err := r.PrepareWorktrees(ctx, "next", "main", 1); err != nil {
				t.Fatal(err)
			}
			r.prepared.mu.Lock()
			top := r.prepared.ready[0].path
			r.prepared.mu.Unlock()
			var now syscall.Stat_t
			must(t, syscall.Lstat(filepath.Join(top, "lib"), &now))
			t.Logf("recycled: %v", now.Ino == kept.Ino)
			if diff := notCheckout(t, dir, "main", top); diff != "" {
				t.Errorf("the restored tree is not a fresh checkout: %s", diff)
			}
			wf, err = r.CreateWorkflow(ctx, "w1", "main")
			if err != nil {
				t.Fatal(err)
			}
			if diff := notCheckout(t, dir, "main", wf.Worktree); diff != "" {
				t.Errorf("the next workflow's tree is not a fresh checkout: %s", diff)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rewriteKept rewrites the file at p in place with other bytes of the same
// size and sets its modification time back.
func rewriteKept(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Lstat(p)
	must(t, err)
	data, err := os.ReadFile(p)
	must(t, err)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	must(t, err)
	_, err = f.Write([]byte(strings.ToUpper(string(data))))
	must(t, err)
	must(t, f.Close())
	must(t, os.Chtimes(p, time.Now(), fi.ModTime()))
}

// notCheckout says how the tree at top differs from a fresh checkout of
// rev ("" when it does not): every entry but the top .git file, its type,
// mode and content or target.
func notCheckout(t *testing.T, repo, rev, top string) string {
	t.Helper()
	want := map[string]string{}
	for _, line := range strings.Split(gitT(t, repo, "ls-tree", "-r", "-z", "--full-tree", rev), "\x00") {
		meta, p, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		out, err := exec.Command("git", "-C", repo, "cat-file", "blob", f[2]).Output()
		must(t, err)
		want[p] = f[0] + " " + string(out)
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			want[d+"/"] = "dir"
		}
	}
	got := map[string]string{}
	err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(top, p)
		if rel == "." || rel == ".git" {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			got[rel+"/"] = "dir"
			if m.Perm()|m&(fs.ModeSetgid|fs.ModeSticky) != fs.FileMode(0o777&^umaskT()) {
				got[rel+"/"] = "dir " + m.String()
			}
		case m&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			got[rel] = "120000 " + target
		case m.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			mode := "100644"
			if m&0o100 != 0 {
				mode = "100755"
			}
			got[rel] = mode + " " + string(data)
		default:
			got[rel] = "special " + m.String()
		}
		return nil
	})
	must(t, err)
	var diffs []string
	for p, w := range want {
		if g, ok := got[p]; !ok || g != w {
			diffs = append(diffs, fmt.Sprintf("%s: %s, want %s", p, strconv.Quote(g), strconv.Quote(w)))
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: %s, not in the checkout", p, strconv.Quote(g)))
		}
	}
	return strings.Join(diffs, "; ")
}

// umaskT is the process's umask.
func umaskT() int { return int(umask()) }
