package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadGitFile(t *testing.T) {
	type want struct{ gitdir, common string } // relative to the test's temp dir
	tests := []struct {
		name    string
		setup   func(t *testing.T, top, wt string)
		want    want
		wantErr error
	}{
		{"linked worktree, absolute", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(top, "repo/.git/worktrees/wt")+"\n")
			put(t, filepath.Join(top, "repo/.git/worktrees/wt/commondir"), "../..\n")
		}, want{"repo/.git/worktrees/wt", "repo/.git"}, nil},
		{"relative gitdir, no commondir (a submodule)", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(wt, ".git"), "gitdir: ../repo/.git/modules/wt\r\n")
			mkdirs(t, filepath.Join(top, "repo/.git/modules/wt"))
		}, want{"repo/.git/modules/wt", "repo/.git/modules/wt"}, nil},
		{"absolute commondir", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(wt, ".git"), "gitdir: ../g\n")
			put(t, filepath.Join(top, "g/commondir"), filepath.Join(top, "common")+"\n")
		}, want{"g", "common"}, nil},
		{"no gitdir line", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(wt, ".git"), "ref: refs/heads/main\n")
		}, want{}, ErrNotGitFile},
		{"empty gitdir", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(wt, ".git"), "gitdir: \n")
		}, want{}, ErrNotGitFile},
		{"no .git", func(t *testing.T, top, wt string) {}, want{}, os.ErrNotExist},
		{"a symlink named .git is not followed", func(t *testing.T, top, wt string) {
			put(t, filepath.Join(top, "elsewhere"), "gitdir: /etc\n")
			if err := os.Symlink(filepath.Join(top, "elsewhere"), filepath.Join(wt, ".git")); err != nil {
				t.Fatal(err)
			}
		}, want{}, syscall.ELOOP},
		{"a FIFO named .git does not block", func(t *testing.T, top, wt string) {
			if err := syscall.Mkfifo(filepath.Join(wt, ".git"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, want{}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			wt := filepath.Join(top, "wt")
			mkdirs(t, wt)
			tc.setup(t, top, wt)
			type result struct {
				gitdir, common string
				err            error
			}
			done := make(chan result, 1)
			go func() {
				g, c, err := ReadGitFile(wt)
				done <- result{g, c, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadGitFile blocked")
			}
			if tc.want.gitdir == "" {
				if r.err == nil || tc.wantErr != nil && !errors.Is(r.err, tc.wantErr) {
					t.Fatalf("ReadGitFile = %q, %q, %v; want error %v", r.gitdir, r.common, r.err, tc.wantErr)
				}
				return
			}
			if r.err != nil || r.gitdir != filepath.Join(top, tc.want.gitdir) || r.common != filepath.Join(top, tc.want.common) {
				t.Fatalf("ReadGitFile = %q, %q, %v; want %v under %s", r.gitdir, r.common, r.err, tc.want, top)
			}
		})
	}
}

func put(t *testing.T, name, data string) {
	t.Helper()
	mkdirs(t, filepath.Dir(name))
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
