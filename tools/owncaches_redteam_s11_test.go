package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnCachePlantsReachNothing (redteam s11, point 4): a command
// replaces the repository's own caches (<git dir>/autarch/caches/npm,
// pip, yarn) with symbolic links to the repository's git directory, to
// Autarch's state beside them and to the home directory. The next
// command's sandbox, which binds the caches folder whole, follows them
// only inside its own view: the git directory stays read-only, Autarch's
// state masked, the home directory absent, and nothing host-side writes
// through them; since s11 03 each link is removed and its cache made again
// before the next command.
func TestOwnCachePlantsReachNothing(t *testing.T) {
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{".git/autarch/state.db": "autarchstateautarchstate\n"})
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	own := filepath.Join(a.ws, ".git", "autarch", "caches")
	plant := `rm -rf "$npm_config_cache" "$PIP_CACHE_DIR" "$YARN_CACHE_FOLDER" &&
ln -s ../.. "$npm_config_cache" && ln -s .. "$PIP_CACHE_DIR" && ln -s ` + shellQuote(a.home) + ` "$YARN_CACHE_FOLDER" && echo planted`
	if res := h.call("shell", map[string]any{"command": plant, "reason": "attack"}); !strings.Contains(res.Output, "planted") {
		t.Fatalf("the plant did not run: %s", res.Output)
	}
	config := readFileT(t, filepath.Join(a.ws, ".git", "config"))
	res := h.call("shell", map[string]any{"command": `cat "$npm_config_cache/autarch/state.db" "$PIP_CACHE_DIR/state.db" "$YARN_CACHE_FOLDER/.aws/credentials" 2>/dev/null
echo '[core] hooksPath = /tmp' >> "$npm_config_cache/config" 2>/dev/null && echo config-written
touch "$PIP_CACHE_DIR/planted-state" 2>/dev/null && echo state-written
touch "$YARN_CACHE_FOLDER/planted-home" 2>/dev/null && echo home-written
echo ran`, "reason": "attack"})
	if !strings.Contains(res.Output, "ran") {
		t.Fatalf("the next command did not run: %s", res.Output)
	}
	// (A write under the home directory lands in the sandbox's own
	// scratch view of it, gone with the command: the host check below.)
	// The plants are gone before the next command (each is made a folder
	// again), so its writes land in the caches themselves; the host
	// checks below say nothing reached the git directory or the home.
	for _, leak := range []string{"autarchstate", "homesecret"} {
		if strings.Contains(res.Output, leak) {
			t.Errorf("through a link planted in the repository's caches, the next command reached %q: %s", leak, res.Output)
		}
	}
	if got := readFileT(t, filepath.Join(a.ws, ".git", "config")); got != config {
		t.Errorf("the repository's config changed: %q", got)
	}
	for _, p := range []string{filepath.Join(a.ws, ".git", "autarch", "planted-state"), filepath.Join(a.home, "planted-home")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written through a planted link", p)
		}
	}
	for _, c := range []string{"npm", "pip", "yarn"} {
		if fi, err := os.Lstat(filepath.Join(own, c)); err != nil || !fi.IsDir() {
			t.Errorf("the planted link in place of the %s cache was not made a folder again (%v)", c, err)
		}
	}
}

// TestOwnCacheDanglingLinkBlocksNoCommand (redteam s11, 03): a command
// replaces the repository's npm cache with a symbolic link to nothing.
// Every later command of the repository, in every workflow, must still
// run (the cache is Autarch's to repair: it is a cache).
func TestOwnCacheDanglingLinkBlocksNoCommand(t *testing.T) {
	a := newAttackWorkspace(t)
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	if res := h.call("shell", map[string]any{"command": `rm -rf "$npm_config_cache" && ln -s /nonexistent-redteam-s11 "$npm_config_cache" && echo planted`, "reason": "attack"}); !strings.Contains(res.Output, "planted") {
		t.Fatalf("the plant did not run: %s", res.Output)
	}
	for _, role := range []string{"preflight", "pulsing"} {
		other := newHarness(t, role, SessionConfig{Root: a.ws})
		if res := other.call("shell", map[string]any{"command": "echo ran", "reason": "probe"}); !strings.Contains(res.Output, "ran") {
			t.Errorf("%s: after a link to nothing was planted in the repository's npm cache, a command does not run: %s", role, res.Output)
		}
	}
}

func readFileT(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
