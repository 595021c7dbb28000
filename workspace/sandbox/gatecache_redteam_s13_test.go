package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestGateCacheTracksIncludedHeaders (red team s13, 01): the go command's
// action id of a package hashes the files of the package's own folder,
// never a header that its C preamble or its assembly includes from
// another folder ("../hdr/x.h", -I${SRCDIR}/../hdr, "sub/x.h"). A gate's
// kept cache therefore holds, under the id of unchanged Go sources, the
// archive compiled from whatever the header said at the first gate: an
// agent passes one gate with a good header, then changes the header
// alone, and every later gate reuses the old archive and passes code
// whose own build fails its tests (or does not compile at all).
func TestGateCacheTracksIncludedHeaders(t *testing.T) {
	t.Skip("redteam s13 01: open, see /work/briefs/s13/redteam/01-gate-cache-misses-included-headers.md")
	if landlockVersion() < 1 {
		t.Fatal("this kernel has no Landlock")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc not found (%v): cgo needs it", err)
	}
	// The user's build cache, read under the gate's, as in
	// TestGateTestBinaryCannotWriteGateCache.
	cmd := exec.Command("go", "env", "GOCACHE")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(out)))
	const test = `package b

import "testing"

func TestAnswer(t *testing.T) {
	if got := Answer(); got != 42 {
		t.Fatalf("Answer() = %d", got)
	}
}
`
	for _, tc := range []struct {
		name   string
		files  map[string]string
		header string
		bad    string // the header's second content
		gate   string
	}{
		{
			name: "cgo preamble, answer changed",
			files: map[string]string{"b/b.go": "package b\n\n// #include \"../hdr/answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n",
				"b/b_test.go": test},
			header: "hdr/answer.h", bad: "#define ANSWER 41\n", gate: "go test -count=1 ./b",
		},
		{
			name: "cgo -I flag, header does not compile",
			files: map[string]string{"b/b.go": "package b\n\n// #cgo CFLAGS: -I${SRCDIR}/../hdr\n// #include \"answer.h\"\nimport \"C\"\n\nfunc Answer() int { return int(C.ANSWER) }\n",
				"b/b_test.go": test},
			header: "hdr/answer.h", bad: "#error planted\n", gate: "go build ./b && go vet ./b && go test -count=1 ./b",
		},
		{
			name: "assembly include",
			files: map[string]string{"b/b.go": "package b\n\nfunc Answer() int64\n",
				"b/b_amd64.s": "#include \"textflag.h\"\n#include \"../hdr/answer.h\"\n\nTEXT ·Answer(SB), NOSPLIT, $0-8\n\tMOVQ $ANSWER, AX\n\tMOVQ AX, ret+0(FP)\n\tRET\n",
				"b/b_test.go": test},
			header: "hdr/answer.h", bad: "#define ANSWER 41\n", gate: "go test -count=1 ./b",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if st := f.sb.Probe(context.Background()); !st.Available {
				t.Fatalf("probe: %v", st)
			}
			mustWrite(t, filepath.Join(f.dir, "go.mod"), "module example.com/p\n\ngo 1.21\n")
			for name, content := range tc.files {
				mustWrite(t, filepath.Join(f.dir, name), content)
			}
			mustWrite(t, filepath.Join(f.dir, tc.header), "#define ANSWER 42\n")
			own := filepath.Join(t.TempDir(), "caches")
			build, gate := filepath.Join(own, "go-build"), filepath.Join(t.TempDir(), "gate", "go-build")
			gateSpec := func(cache string) Spec {
				return Spec{Command: tc.gate, Caches: f.sb.DefaultCaches(), OwnCaches: own, BuildCache: build,
					Gate: true, GateCache: cache, Timeout: 5 * time.Minute}
			}
			if res := f.run(t, gateSpec(gate)); res.ExitCode != 0 {
				t.Fatalf("the first gate, good header: exit %d: %s %s", res.ExitCode, res.Stdout, res.Stderr)
			}
			// The agent's command changes the header alone.
			agent := f.run(t, Spec{Command: "printf '%s' '" + strings.TrimSuffix(tc.bad, "\n") + "\n' > " + tc.header,
				OwnCaches: own, BuildCache: build})
			if agent.ExitCode != 0 {
				t.Fatalf("the agent's command: %s", agent.Stderr)
			}
			// The same tree fails a gate with a cache of its own.
			if cold := f.run(t, gateSpec(filepath.Join(t.TempDir(), "cold", "go-build"))); cold.ExitCode == 0 {
				t.Fatalf("the bad header passes even a cold gate: %s", cold.Stdout)
			}
			if res := f.run(t, gateSpec(gate)); res.ExitCode == 0 {
				t.Errorf("the gate with its kept cache passed code whose build fails (the header changed, the cache kept the old archive):\n%s", res.Stdout)
			}
		})
	}
}

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
