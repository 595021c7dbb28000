package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
)

// TestMaskFollowsHardLinks: a command links a clean file under a second
// name. Later the user writes a secret into the file in place (an editor
// that does not replace the file, a tool appending a token): the tree
// watch reports the name written through, and the next decision masks it;
// the other name holds the same secret and must be masked too.
func TestMaskFollowsHardLinks(t *testing.T) {
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	for _, link := range []string{"docs/copy.cfg", "node_modules/.cache/copy.cfg"} {
		t.Run(link, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			top := filepath.Join(t.TempDir(), "repo")
			writeFile(t, filepath.Join(top, "main.go"), "package main\n")
			writeFile(t, filepath.Join(top, "src", "app.cfg"), "name = demo\n")
			writeFile(t, filepath.Join(top, "docs", "README"), "docs\n")
			commitAll(t, top)
			call := shellSession(t, tools.SessionConfig{Root: top})
			stdout := shellText(t, call)
			if out := stdout("mkdir -p " + filepath.Dir(link) + " && ln src/app.cfg " + link + " && echo linked"); !strings.Contains(out, "linked") {
				t.Fatalf("linking: %s", out)
			}
			stdout("true") // its decision finds both names clean
			// The user writes a secret into the file, in place.
			f, err := os.OpenFile(filepath.Join(top, "src", "app.cfg"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString("token = " + token + "\n"); err != nil {
				t.Fatal(err)
			}
			f.Close()
			out := call("rev src/app.cfg " + link)
			if strings.Contains(out, reverseString(token)) {
				t.Errorf("a command read the secret through a hard link's other name: %s", out)
			}
			// A name the walk finds is masked too; one in a folder it
			// skips cannot be: the command is refused, naming the file.
			refused := strings.Contains(out, "src/app.cfg holds a secret and has other names (hard links)")
			if want := strings.HasPrefix(link, "node_modules/"); refused != want {
				t.Errorf("refused = %v, want %v: %s", refused, want, out)
			}
		})
	}
}

func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
