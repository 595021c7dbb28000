package tools_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

// TestVerdictStoreOutOfReach: the gate's persisted verdicts (by file
// version, in the repository's Autarch state) decide which files a
// command may read without reading them again; no command can read,
// write, replace or move that store, in the user's repository or in a
// workflow's worktree, so none can forge a clean verdict for a secret's
// version.
func TestVerdictStoreOutOfReach(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	top := filepath.Join(t.TempDir(), "repo")
	const token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	writeFile(t, filepath.Join(top, "main.go"), "package main\n")
	writeFile(t, filepath.Join(top, "keys", "fixture.txt"), "token = "+token+"\n")
	repo := commitAll(t, top)
	wf, err := repo.CreateWorkflow(t.Context(), "mine", "main")
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []struct {
		name string
		cfg  tools.SessionConfig
	}{
		{"the user's repository", tools.SessionConfig{Root: top}},
		{"a workflow's worktree", tools.SessionConfig{Root: wf.Worktree, GitCommonDir: repo.CommonDir()}},
	} {
		t.Run(root.name, func(t *testing.T) {
			// A first session decides, and saves the verdicts as it closes.
			t.Run("first session", func(t *testing.T) { shellSession(t, root.cfg)("true") })
			store := filepath.Join(workspace.VerdictDir(root.cfg.Root, repo.CommonDir()), "gate-verdicts")
			call := shellSession(t, root.cfg)
			before, err := os.ReadFile(store)
			if err != nil || !bytes.HasPrefix(before, []byte("autarch-gate-verdicts")) {
				t.Fatalf("no verdict store at %s: %v", store, err)
			}
			state := filepath.Dir(store)
			for _, c := range []string{
				"cat " + store + " | od -c | head -3; ls -la " + state,
				"printf 'autarch-gate-verdicts-1\\n' > " + store + "; rm -f " + store + "; ln -s /tmp/x " + store,
				"mv " + state + " " + state + ".moved; mv " + filepath.Dir(state) + " /tmp/moved",
				"mv .git .git.moved; mv -T keys keys2 && mv -T keys2 keys",
				"unshare -Urm sh -c 'umount -l " + state + "; ls " + state + "; printf x > " + store + "'",
				"cat /proc/1/root" + store + " /proc/self/root" + store,
			} {
				var res struct{ Stdout, Stderr string }
				if err := json.Unmarshal([]byte(call(c)), &res); err != nil {
					t.Fatalf("%q: %v", c, err)
				}
				if strings.Contains(res.Stdout, "gate-verdicts") || strings.Contains(res.Stdout, "autarch-gate") {
					t.Errorf("%q saw the verdict store: %s", c, res.Stdout)
				}
				if after, _ := os.ReadFile(store); !bytes.Equal(after, before) {
					t.Fatalf("%q changed the verdict store", c)
				}
			}
			if out := call("rev keys/fixture.txt"); strings.Contains(out, reverseToken(token)) {
				t.Errorf("the secret is readable: %s", out)
			}
		})
	}
}

func reverseToken(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
