package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnCachesInTheRepositoryStateFolder: a command writes the caches
// Autarch keeps for its repository (in the git directory's Autarch state
// folder) and nothing else of that folder: the rest stays masked, and
// the user's own caches stay read-only.
func TestOwnCachesInTheRepositoryStateFolder(t *testing.T) {
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{".git/autarch/state.db": "autarchstateautarchstate\n"})
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	res := h.call("shell", map[string]any{"command": `echo "N=$npm_config_cache"; touch "$npm_config_cache/planted" && echo own-written; cat .git/autarch/state.db; touch .git/autarch/new 2>/dev/null && echo state-written`, "reason": "attack"})
	own := filepath.Join(a.ws, ".git", "autarch", "caches")
	for _, want := range []string{"N=" + filepath.Join(own, "npm"), "own-written"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("want %q in %s", want, res.Output)
		}
	}
	if strings.Contains(res.Output, "autarchstate") || strings.Contains(res.Output, "state-written") {
		t.Errorf("a command reached Autarch's state beside the repository's caches: %s", res.Output)
	}
	if _, err := os.Stat(filepath.Join(own, "npm", "planted")); err != nil {
		t.Errorf("the command's write to its repository's npm cache is not there: %v", err)
	}
}

// TestCacheWriteRefusedNotice: a download refused by the user's read-only
// module cache tells the agent what happened and what the user can do.
func TestCacheWriteRefusedNotice(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   bool
	}{
		{"go: example.com/x@v1.0.0: mkdir /root/go/pkg/mod/cache/download/example.com: read-only file system", true},
		{"error: failed to create directory `/home/u/.cargo/registry/cache/x`\n\nCaused by:\n  Read-only file system (os error 30)", true},
		{"error: failed to open `/home/u/.cargo/registry/index/x/.package-cache`: Read-only file system (os error 30)", true},
		{"touch: cannot touch 'src/x': Read-only file system", false},
		{"go: example.com/x@v1.0.0: module lookup disabled by GOPROXY=off", false},
	} {
		if got := cacheWriteRefused(tc.stderr); got != tc.want {
			t.Errorf("cacheWriteRefused(%q) = %v, want %v", tc.stderr, got, tc.want)
		}
	}
	a := newAttackWorkspace(t)
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	res := h.call("shell", map[string]any{"command": "echo 'go: example.com/x@v1.0.0: mkdir /root/go/pkg/mod/cache/download/x: read-only file system' >&2; exit 1", "reason": "probe"})
	if !strings.Contains(res.Output, "go mod download") {
		t.Errorf("a refused module download carries no notice: %s", res.Output)
	}
}
