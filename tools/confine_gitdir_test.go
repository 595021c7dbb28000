package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestGitCommonDir: the sandbox's repository directory comes only from a
// .git file's <common>/worktrees/<name> path, read without following a
// symlink or blocking on a FIFO.
func TestGitCommonDir(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, top, wt string)
		want  string // relative to the test's temp dir; "" for none
	}{
		{"linked worktree", func(t *testing.T, top, wt string) {
			writeFiles(t, wt, map[string]string{".git": "gitdir: " + filepath.Join(top, "repo/.git/worktrees/wt") + "\n"})
		}, "repo/.git"},
		{"a commondir file is not trusted", func(t *testing.T, top, wt string) {
			writeFiles(t, wt, map[string]string{".git": "gitdir: ../sub/.git/modules/wt\n"})
			writeFiles(t, top, map[string]string{"sub/.git/modules/wt/commondir": top + "\n"})
		}, ""},
		{"a .git directory", func(t *testing.T, top, wt string) {
			writeFiles(t, wt, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
		}, ""},
		{"a symlink named .git", func(t *testing.T, top, wt string) {
			writeFiles(t, top, map[string]string{"elsewhere": "gitdir: " + filepath.Join(top, "x/worktrees/wt") + "\n"})
			if err := os.Symlink(filepath.Join(top, "elsewhere"), filepath.Join(wt, ".git")); err != nil {
				t.Fatal(err)
			}
		}, ""},
		{"a FIFO named .git", func(t *testing.T, top, wt string) {
			if err := syscall.Mkfifo(filepath.Join(wt, ".git"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			top := t.TempDir()
			wt := filepath.Join(top, "wt")
			if err := os.Mkdir(wt, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, top, wt)
			s, err := NewSession(SessionConfig{Root: wt, Role: "pulsing", Mode: ModeYolo})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			done := make(chan string, 1)
			go func() { done <- s.gitCommonDir() }()
			var got string
			select {
			case got = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("gitCommonDir blocked")
			}
			want := ""
			if tc.want != "" {
				want = filepath.Join(top, tc.want)
			}
			if got != want {
				t.Errorf("gitCommonDir = %q, want %q", got, want)
			}
		})
	}
}
