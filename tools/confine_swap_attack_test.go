package tools_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestMaskSwappedFolderKeepsItsMask: a command swaps the folder that holds
// a secret file with a folder holding a decoy of the same size and
// modification time (both read from the index: `git ls-files --debug`),
// which the decision before had found clean. Moving a folder makes the
// tree watch lose track, so the next decision walks the whole tree; the
// secret, now at the decoy's path, must still be masked there: the walk
// may not take the decoy's verdict for it because the size and time match
// (the file's identity differs: another inode, another change time).
func TestMaskSwappedFolderKeepsItsMask(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	top := filepath.Join(t.TempDir(), "repo")
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	writeFile(t, filepath.Join(top, "main.go"), "package main\n")
	writeFile(t, filepath.Join(top, "keys", "fixture.txt"), "token = "+token+"\n")
	commitAll(t, top)
	call := shellSession(t, tools.SessionConfig{Root: top})
	stdout := shellText(t, call)
	// The decoy: clean content of the secret's size, with its
	// modification time, both as the index records them.
	out := stdout(`set -e
m=$(git ls-files --debug keys/fixture.txt | awk '$1 == "mtime:" {split($2, t, ":"); printf "%s.%09d", t[1], t[2]}')
n=$(git ls-files --debug keys/fixture.txt | awk '$1 == "size:" {print $2}')
mkdir decoy; head -c "$n" /dev/zero | tr '\0' x > decoy/fixture.txt
touch -d "@$m" decoy/fixture.txt; echo "decoy $n $m"; cat keys/fixture.txt`)
	if !strings.Contains(out, "decoy ") || strings.Contains(out, token) {
		t.Fatalf("making the decoy: %s", out)
	}
	// The next decision finds the decoy clean; the command swaps the
	// folders (the masked file is a mount point, its folder is not).
	// A command cannot move the secret's folder (it is pinned); a
	// process outside the sandbox can, and the verdict must follow the
	// file, not its size and time.
	out = stdout("mv -T keys tmp && mv -T decoy keys && mv -T tmp decoy && echo swapped")
	if !strings.Contains(out, "Device or resource busy") {
		t.Errorf("a command moved the folder of a masked file: %s", out)
	}
	if !strings.Contains(out, "swapped") {
		for _, mv := range [][2]string{{"keys", "tmp"}, {"decoy", "keys"}, {"tmp", "decoy"}} {
			if err := os.Rename(filepath.Join(top, mv[0]), filepath.Join(top, mv[1])); err != nil {
				t.Fatal(err)
			}
		}
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("token = " + token + "\n"))
	for _, c := range []string{"cat decoy/fixture.txt keys/fixture.txt", "rev decoy/fixture.txt", "base64 -w0 decoy/fixture.txt"} {
		out := stdout(c)
		for _, leak := range []string{token, reverse(token), b64[:24]} {
			if strings.Contains(out, leak) {
				t.Errorf("%q read the secret after its folder was swapped with a decoy's: %s", c, out)
			}
		}
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
