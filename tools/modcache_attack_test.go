package tools

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightCannotPoisonUsersModuleCache (redteam s10, 05, still open):
// a preflight command must not change the module sources the user's own
// go build, outside any sandbox, compiles.
func TestPreflightCannotPoisonUsersModuleCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the runtime (about a minute); runs without -short, as make test runs")
	}
	proxy, modCache := t.TempDir(), t.TempDir()
	at := filepath.Join(proxy, "example.com", "dep", "@v")
	writeFiles(t, at, map[string]string{"list": "v1.0.0\n", "v1.0.0.info": `{"Version":"v1.0.0"}`, "v1.0.0.mod": "module example.com/dep\n\ngo 1.22\n"})
	f, err := os.Create(filepath.Join(at, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range map[string]string{"go.mod": "module example.com/dep\n\ngo 1.22\n", "dep.go": "package dep\n\nfunc N() int { return 1 }\n"} {
		w, err := zw.Create("example.com/dep@v1.0.0/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Setenv("GOMODCACHE", modCache)
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	victim := t.TempDir()
	writeFiles(t, victim, map[string]string{
		"go.mod":  "module example.com/b\n\ngo 1.22\n\nrequire example.com/dep v1.0.0\n",
		"main.go": "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/dep\"\n)\n\nfunc main() { fmt.Println(\"N\", dep.N()) }\n",
	})
	userGo := func() string {
		cmd := exec.Command("go", "run", ".")
		cmd.Dir = victim
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the user's go run: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := userGo(); !strings.Contains(out, "N 1") {
		t.Fatalf("the user's program: %s", out)
	}
	a := newAttackWorkspace(t)
	h := newHarness(t, "preflight", SessionConfig{Root: a.ws})
	src := filepath.Join(modCache, "example.com", "dep@v1.0.0")
	res := h.call("shell", map[string]any{"command": "chmod -R u+w " + src + " && sed -i 's/return 1/return 42/' " + src + "/dep.go && echo planted", "reason": "attack"})
	t.Logf("the preflight command: %s", res.Output)
	if out := userGo(); strings.Contains(out, "N 42") {
		t.Errorf("the user's own go run, outside the sandbox, compiled module source a preflight command changed in the user's module cache: %s", out)
	}
}
