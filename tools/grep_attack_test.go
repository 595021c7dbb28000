package tools

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGrepShowsNoBlockedFile (redteam s10): grep's fast walk (getdents,
// opens relative to the folder, the per-folder ignore matcher) never shows
// a file the gate blocks by path, however the tree is laid out to confuse
// it — a .gitignore that un-ignores one, backup and swap names, a folder
// with a name that is not UTF-8, a folder reached through a symlink — and
// no FIFO or device in the tree makes it hang.
func TestGrepShowsNoBlockedFile(t *testing.T) {
	a := newAttackWorkspace(t)
	const secret = "zzplainvalue"
	blocked := []string{".env", "conf/.env", "conf/deep/.env.local", ".env~", "#.env#", ".env.swp", "\xff\xfe/.env", "ok\ndir/.env", "node_modules/.env", "keys/id_ed25519", "infra/prod.tfvars"}
	files := map[string]string{
		".gitignore":           "conf/*\n!conf/.env\n!conf/deep/\nnode_modules/\n",
		"conf/deep/.gitignore": "!*\n",
		"plain/ok.txt":         "NAME=" + secret + "\n", // the control: found
	}
	for _, p := range blocked {
		files[p] = "NAME=" + secret + "\n"
	}
	writeFiles(t, a.ws, files)
	for _, link := range [][2]string{{"conf", "alias"}, {"/dev/zero", "zero.txt"}, {"/dev/tty", "tty.txt"}, {"/proc/self/environ", "env.txt"}} {
		if err := os.Symlink(link[0], filepath.Join(a.ws, link[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(a.ws, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	for _, pattern := range []string{secret, "NAME=", "zz.*value"} {
		done := make(chan string, 1)
		go func() { done <- h.call("grep", map[string]any{"pattern": pattern, "reason": "attack"}).Output }()
		select {
		case out := <-done:
			if strings.Count(out, `"file_path"`) != 1 || !strings.Contains(out, `"file_path":"plain/ok.txt"`) {
				t.Errorf("grep %q showed a blocked file: %s", pattern, out)
			}
		case <-time.After(time.Minute):
			t.Fatalf("grep %q hung on a FIFO or device", pattern)
		}
	}
}
