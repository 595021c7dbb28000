package tools_test

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestMaskFollowsIntoSkippedFolders: a command moves the folder holding a
// secret file into a folder the mask walk skips (a dependency folder, a
// nested .git): the masked file is a mount point and cannot move, but its
// folder can. The secret must stay masked for the next commands.
func TestMaskFollowsIntoSkippedFolders(t *testing.T) {
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	content := "token = " + token + "\n"
	b64 := base64.StdEncoding.EncodeToString([]byte(content))
	for _, dest := range []string{"node_modules/keys", ".venv/keys", "sub/.git/keys", "x/__pycache__/keys"} {
		t.Run(dest, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			top := filepath.Join(t.TempDir(), "repo")
			writeFile(t, filepath.Join(top, "main.go"), "package main\n")
			writeFile(t, filepath.Join(top, "keys", "fixture.txt"), content)
			writeFile(t, filepath.Join(top, "keys", ".env"), "PASSWORD=dotenv-in-moved-folder-0001\n")
			commitAll(t, top)
			call := shellSession(t, tools.SessionConfig{Root: top})
			stdout := shellText(t, call)
			// The folders above a masked file are pinned: the move is
			// refused. Were it not, the secret must stay masked there.
			out := stdout("mkdir -p " + filepath.Dir(dest) + " && mv -T keys " + dest + " && echo moved")
			if strings.Contains(out, "Device or resource busy") {
				return
			}
			if !strings.Contains(out, "moved") {
				t.Fatalf("moving the folder: %s", out)
			}
			for _, c := range []string{"rev " + dest + "/fixture.txt " + dest + "/.env", "base64 -w0 " + dest + "/fixture.txt"} {
				out := stdout(c)
				for _, leak := range []string{token, reverse(token), b64[:24], "dotenv-in-moved-folder", reverse("dotenv-in-moved-folder")} {
					if strings.Contains(out, leak) {
						t.Errorf("%q read a secret moved into %s: %s", c, dest, out)
					}
				}
			}
		})
	}
}
