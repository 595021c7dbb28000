package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Red team s13 01 (the kept cache and headers included from another
// folder) is closed in tools/verify: its acceptance runs the real gates,
// tools TestGatesTrackIncludedHeaders.

// signalProbeTest is a test an agent writes whose binary, run by a gate,
// asks whether it may signal the go command (its parent) and the other
// processes of the sandbox: kill(pid, 0) checks the right and sends
// nothing.
const signalProbeTest = `package p

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

func TestSignals(t *testing.T) {
	if err := syscall.Kill(os.Getppid(), 0); err != nil {
		t.Logf("PROBE go-signal refused %v", err)
	} else {
		t.Logf("PROBE go-signal allowed")
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() || pid == os.Getppid() {
			continue
		}
		if syscall.Kill(pid, 0) == nil {
			cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			t.Logf("PROBE other-signal allowed %d %q", pid, cmd)
		}
	}
}
`

// TestGateTestBinaryCannotSignalTheGate (red team s13, 04): Landlock ABI
// 6 scopes signals to the sandboxed domain; without it, a gate's test
// binary may stop (SIGSTOP) or kill the go command and the cache
// program: the gate hangs to its timeout or fails. Low: it never passes.
func TestGateTestBinaryCannotSignalTheGate(t *testing.T) {
	if landlockVersion() < 6 {
		t.Skipf("Landlock ABI %d: signal scoping needs 6", landlockVersion())
	}
	f := userCacheFixture(t)
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "p", "p_test.go"), signalProbeTest)
	own := filepath.Join(t.TempDir(), "caches")
	res := f.run(t, Spec{Command: "go test -v -count=1 ./p", Caches: f.sb.DefaultCaches(), OwnCaches: own,
		BuildCache: filepath.Join(own, "go-build"), Gate: true, GateCache: filepath.Join(t.TempDir(), "gate", "go-build"), Timeout: 5 * time.Minute})
	if res.ExitCode != 0 {
		t.Fatalf("the gate's go test: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "PROBE go-signal refused") || strings.Contains(res.Stdout, "PROBE other-signal allowed") {
		t.Errorf("the test binary may signal processes outside its Landlock domain:\n%s", res.Stdout)
	}
}

// procProbeTest is a test an agent writes whose binary, run by a gate,
// reaches for the gate's cache through /proc: the descriptors of the go
// command and of the cache program (their pipes, an open cache file),
// and their root, where /run/autarch-sandbox/gate-cache is.
const procProbeTest = `package p

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestProc(t *testing.T) {
	pids := []int{os.Getppid()}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(cmd), "autarch-sandbox-gocache") {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		p := "/proc/" + strconv.Itoa(pid)
		if fds, err := os.ReadDir(p + "/fd"); err == nil {
			t.Logf("PROBE fd listed %d: %d", pid, len(fds))
		}
		for i := 0; i < 16; i++ {
			if f, err := os.OpenFile(p+"/fd/"+strconv.Itoa(i), os.O_WRONLY, 0); err == nil {
				f.Close()
				t.Logf("PROBE fd opened %d/%d", pid, i)
			}
		}
		if err := os.WriteFile(p+"/root/run/autarch-sandbox/gate-cache/planted", []byte("x"), 0o644); err == nil {
			t.Logf("PROBE root written %d", pid)
		}
	}
	t.Logf("PROBE done %v", pids)
}
`

// TestGateTestBinaryCannotReachTheGoCommandThroughProc (red team s13,
// held): a gate's test binary can neither open the go command's or the
// cache program's descriptors (their pipes to each other, a cache file
// open for writing; it may list their numbers) nor write the gate's cache through their /proc root.
// The defence is Landlock's ptrace rule (a domain may not access a
// process outside it): with Landlock cut (b.landlock = 0, and the kept
// cache forced) every probe succeeds.
func TestGateTestBinaryCannotReachTheGoCommandThroughProc(t *testing.T) {
	if landlockVersion() < 1 {
		t.Fatal("this kernel has no Landlock")
	}
	f := userCacheFixture(t)
	mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
	mustWrite(t, filepath.Join(f.dir, "p", "p_test.go"), procProbeTest)
	own := filepath.Join(t.TempDir(), "caches")
	gate := filepath.Join(t.TempDir(), "gate", "go-build")
	res := f.run(t, Spec{Command: "go test -v -count=1 ./p", Caches: f.sb.DefaultCaches(), OwnCaches: own,
		BuildCache: filepath.Join(own, "go-build"), Gate: true, GateCache: gate, Timeout: 5 * time.Minute})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PROBE done [") {
		t.Fatalf("the gate's go test: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
	}
	if !regexp.MustCompile(`PROBE done \[\d+ \d+`).MatchString(res.Stdout) {
		t.Fatalf("the probe did not find the cache program: %s", res.Stdout)
	}
	// Listing a process's descriptors needs no more than its uid: the
	// numbers say nothing. Opening one, or its root, needs ptrace's right.
	for _, bad := range []string{"PROBE fd opened", "PROBE root written"} {
		if strings.Contains(res.Stdout, bad) {
			t.Errorf("the test binary reached the go command or the cache program: %q in\n%s", bad, res.Stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(gate, "planted")); err == nil {
		t.Errorf("the test binary planted a file in the gate's cache through /proc")
	}
}
