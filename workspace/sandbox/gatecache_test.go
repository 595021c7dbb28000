package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gateProbeTest is a test an agent writes to reach the gate's build
// cache from the test binary a gate runs: it says which writes worked.
const gateProbeTest = `package p

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

func TestProbe(t *testing.T) {
	try := func(name, p string) {
		if err := os.WriteFile(p, []byte("planted"), 0o644); err != nil {
			t.Logf("PROBE %s refused", name)
			return
		}
		t.Logf("PROBE %s written", name)
	}
	try("gate-cache", "/run/autarch-sandbox/gate-cache/planted")
	try("gate-tmp", "/run/autarch-sandbox/gate-tmp/planted")
	try("worktree", "planted")
	try("tmp", "/tmp/planted")
	try("home", os.Getenv("HOME")+"/planted")
	try("agent-cache", os.Getenv("GOCACHE")+"/planted")
	if f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", os.Getppid()), os.O_WRONLY, 0); err != nil {
		t.Logf("PROBE go-mem refused")
	} else {
		f.Close()
		t.Logf("PROBE go-mem written")
	}
	out, err := exec.Command("go", "env", "GOCACHE").CombinedOutput()
	t.Logf("PROBE go env GOCACHE %s %v", out, err)
}
`

// TestGateTestBinaryCannotWriteGateCache: in a gate command, the go
// command builds with the gate's cache, and the test binaries it runs
// (the agent's code) cannot write that cache nor the go command's work
// folder, nor the go command's memory, while they write the worktree, /tmp, the home directory and the
// repository's own build cache, which is their GOCACHE. An agent's
// command does not see the gate's cache at all.
func TestGateTestBinaryCannotWriteGateCache(t *testing.T) {
	if landlockVersion() < 1 {
		t.Fatal("this kernel has no Landlock")
	}
	f := userCacheFixture(t)
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "p", "p_test.go"), gateProbeTest)
	own := filepath.Join(t.TempDir(), "caches")
	build, gate := filepath.Join(own, "go-build"), filepath.Join(t.TempDir(), "gate", "go-build")
	spec := Spec{Command: "go test -v -count=1 ./p", Caches: f.sb.DefaultCaches(), OwnCaches: own, BuildCache: build,
		Gate: true, GateCache: gate, Timeout: 5 * time.Minute}
	res := f.run(t, spec)
	if res.ExitCode != 0 {
		t.Fatalf("the gate's go test: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, want := range []string{
		"PROBE gate-cache refused", "PROBE gate-tmp refused", "PROBE go-mem refused",
		"PROBE worktree written", "PROBE tmp written", "PROBE home written", "PROBE agent-cache written",
		"PROBE go env GOCACHE " + build,
	} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("the test binary: want %q in:\n%s", want, res.Stdout)
		}
	}
	if ents, err := os.ReadDir(gate); err != nil || len(ents) == 0 {
		t.Errorf("the gate's go command did not write the gate's cache: %v", err)
	}
	if _, err := os.Stat(filepath.Join(gate, "planted")); err == nil {
		t.Errorf("the test binary planted a file in the gate's cache")
	}
	// The go command's own settings in a gate are ours.
	env := f.run(t, Spec{Command: "echo $GOENV; go env GOCACHE GOTOOLCHAIN GOTMPDIR", OwnCaches: own, BuildCache: build, Gate: true, GateCache: gate})
	if got := strings.Fields(env.Stdout); len(got) != 4 || got[0] != "off" || got[1] != gateCachePath || got[2] != "local" || got[3] != gateTmpPath {
		t.Errorf("the gate's go env: %q %s", got, env.Stderr)
	}
	// What an agent's command persists with go env -w does not reach a
	// gate's go (nor the next command: the home directory is its own).
	f.run(t, Spec{Command: "go env -w GOFLAGS=-toolexec=/bin/false CC=/bin/false", OwnCaches: own, BuildCache: build})
	flags := f.run(t, Spec{Command: "go env GOFLAGS CC", OwnCaches: own, BuildCache: build, Gate: true, GateCache: gate})
	if strings.Contains(flags.Stdout, "/bin/false") || !strings.Contains(flags.Stdout, "-exec="+gateExecPath) {
		t.Errorf("the gate's GOFLAGS and CC: %s %s", flags.Stdout, flags.Stderr)
	}
	if r := f.sb.Report(context.Background()); !strings.Contains(r, "go build cache of the quality gates: each repository's gate cache") {
		t.Errorf("doctor does not say which gate cache is in use:\n%s", r)
	}
	// An agent's command sees no gate cache.
	agent := f.run(t, Spec{Command: "ls /run/autarch-sandbox/gate-cache; ls " + gate, OwnCaches: own, BuildCache: build})
	if agent.ExitCode == 0 {
		t.Errorf("an agent's command sees the gate's cache: %s", agent.Stdout)
	}
}

// TestGateWithoutLandlock: where Landlock is missing, a gate command
// builds with a throwaway cache; the kept one is never used.
func TestGateWithoutLandlock(t *testing.T) {
	f := newFixture(t)
	f.sb.landlock = 0
	gate := filepath.Join(t.TempDir(), "gate", "go-build")
	res := f.run(t, Spec{Command: "go env GOCACHE && touch $(go env GOCACHE)/x && echo ok", Gate: true, GateCache: gate})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, gateCachePath+"\nok") {
		t.Errorf("exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(gate); err == nil {
		t.Errorf("the kept gate cache was made without Landlock")
	}
	if !strings.Contains(f.sb.GateCacheMode(), "throwaway") {
		t.Errorf("doctor: %s", f.sb.GateCacheMode())
	}
}

// userCacheFixture is a probed fixture whose sandbox reads the user's Go
// build cache under its own, as gates and commands read it: a gate's go
// command does not compile the standard library again.
func userCacheFixture(t *testing.T) *fixture {
	t.Helper()
	cmd := exec.Command("go", "env", "GOCACHE")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	f := newFixture(t)
	if st := f.sb.Probe(context.Background()); !st.Available {
		t.Fatalf("probe: %v", st)
	}
	return f
}
