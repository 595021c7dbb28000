package tools

import (
	"strings"
	"testing"
)

// TestBuildCacheNotShared (redteam s10, hole 04): what one workflow's
// commands write into the Go build cache must not be built into another
// workflow's (here: another project's) programs and tests. The agent of
// project a poisons the compiled unicode/utf8; project b's next command,
// or its gates' go test, must not link it.
func TestBuildCacheNotShared(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the runtime: about a minute")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a := newAttackWorkspace(t)
	writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n"})
	attacker := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	if res := attacker.call("shell", map[string]any{"command": poisonGoCache, "reason": "attack"}); !strings.Contains(res.Output, "poisoned") {
		t.Fatalf("the attack's command failed: %s", res.Output)
	}
	b := newAttackWorkspace(t)
	writeFiles(t, b.ws, map[string]string{
		"go.mod":  "module example.com/b\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"unicode/utf8\"\n)\n\nfunc main() { fmt.Println(\"RuneLen\", utf8.RuneLen('a')) }\n",
	})
	victim := newHarness(t, "pulsing", SessionConfig{Root: b.ws})
	res := victim.call("shell", map[string]any{"command": "go run .", "reason": "build"})
	if !strings.Contains(res.Output, "RuneLen") {
		t.Fatalf("the victim's build failed: %s", res.Output)
	}
	if strings.Contains(res.Output, "RuneLen 42") {
		t.Errorf("another project's program linked the package one project's agent planted in the build cache: %s", res.Output)
	}
}
