package tools

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPreflightCannotPoisonUsersBuildCache (redteam s10, hole 05): the
// preflight agent's commands see the user's own caches writable (they
// download dependencies). Its command must still not change what the
// user's own go build, outside any sandbox, links.
func TestPreflightCannotPoisonUsersBuildCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the runtime: about a minute")
	}
	userCache := t.TempDir()
	t.Setenv("GOCACHE", userCache)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	victim := t.TempDir()
	writeFiles(t, victim, map[string]string{
		"go.mod":  "module example.com/b\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"unicode/utf8\"\n)\n\nfunc main() { fmt.Println(\"RuneLen\", utf8.RuneLen('a')) }\n",
	})
	userGo := func() string {
		cmd := exec.Command("go", "run", ".")
		cmd.Dir = victim
		cmd.Env = append(os.Environ(), "GOCACHE="+userCache, "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the user's go run: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := userGo(); !strings.Contains(out, "RuneLen 1") { // the user's cache holds utf8
		t.Fatalf("the user's program: %s", out)
	}
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n"})
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	res := h.call("shell", map[string]any{"command": "export C=" + userCache + " GOCACHE=" + userCache + "\n" + poisonGoCache, "reason": "attack"})
	t.Logf("the preflight command: %s", res.Output)
	if out := userGo(); strings.Contains(out, "RuneLen 42") {
		t.Errorf("the user's own go run, outside the sandbox, linked a package a preflight command planted in the user's build cache: %s", out)
	}
}
