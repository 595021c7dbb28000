package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock (Linux 5.13 and later) restricts what a process and its
// descendants may do to files, whatever the mounts say: the gates' go
// test runs the test binaries, which are the agent's code, through the
// running binary (gateExecPath), which runs each as its child from a
// thread it forbids to write anywhere but the command's own writable
// trees, so that they cannot write the gate's build cache nor its test
// results while the go command and the -exec program itself can
// (gatecache.go, testcache.go). Bubblewrap
// cannot do this: nested user namespaces do not work inside the sandbox.

// landlockWrite are the write rights of each Landlock ABI version (1, 2,
// 3…): making, removing, writing, linking and truncating files. Reads,
// executions and device ioctls are never restricted.
var landlockWrite = [...]uint64{
	1: unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM,
	2: unix.LANDLOCK_ACCESS_FS_REFER,
	3: unix.LANDLOCK_ACCESS_FS_TRUNCATE,
}

// landlockVersion is the kernel's Landlock ABI version, 0 when it has
// none (too old, or turned off: lsm= without landlock).
func landlockVersion() int {
	v, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlockWrites restricts the calling thread (and what it executes) to
// writing under roots; the roots that do not exist are skipped. It
// needs the thread locked (runtime.LockOSThread) and is meant for a
// process about to execute another program: the other threads of the
// process are not restricted.
func landlockWrites(roots []string) error {
	abi := landlockVersion()
	if abi < 1 {
		return fmt.Errorf("landlock is not available in this kernel")
	}
	var access uint64
	for v := 1; v <= min(abi, len(landlockWrite)-1); v++ {
		access |= landlockWrite[v]
	}
	// Scoped (ABI 6): no signal to, and no abstract socket of, a
	// process outside the domain: a test binary cannot stop or kill the
	// go command, the cache program or the -exec program (redteam s13 04).
	attr := unix.LandlockRulesetAttr{Handled_access_fs: access, Scoped: landlockScopes()}
	fd, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer syscall.Close(int(fd))
	for _, root := range roots {
		dir, err := unix.Open(root, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		rights := access
		var st unix.Stat_t
		if unix.Fstat(dir, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			// A file, not a folder: Landlock takes only the rights that
			// apply to a file itself.
			rights &= unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(dir)}
		_, _, errno := syscall.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		unix.Close(dir)
		if errno != 0 {
			return fmt.Errorf("landlock_add_rule %s: %w", root, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// gateExecPath is the go test -exec program of a gate command: a symlink
// to the running binary (goCacheProgPath), recognised by this name.
const gateExecPath = "/run/autarch-sandbox/gate-exec"

// gateExecEnv carries a gate's test binaries' confinement (gateTest) to
// the -exec program.
const gateExecEnv = "AUTARCH_SANDBOX_GATE_TEST"

// gateTest is how a gate's -exec program runs a test binary: with writes
// restricted to Writable (when Landlock), and its environment changed.
type gateTest struct {
	// Landlock restricts the test binary's writes to Writable; false
	// where Landlock is missing (the gate's build cache is then a
	// throwaway of this one command).
	Landlock bool
	Writable []string
	// Env are set, Unset removed, in the test binary's environment: the
	// repository's own build cache, not the gate's, for a test that
	// runs go.
	Env   []string
	Unset []string
	// Results is the folder of the gates' test results (testcache.go),
	// "" to keep none: where Landlock keeps the test binaries from
	// writing it only. Private is where the -exec program makes the test
	// log's folder, which the test binaries cannot write either.
	Results string `json:",omitempty"`
	Private string `json:",omitempty"`
}

func init() {
	if len(os.Args) < 2 || os.Args[0] != gateExecPath {
		return
	}
	code, err := gateExec(os.Args[1:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "autarch sandbox: running the test binary %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	if code == -int(syscall.SIGKILL) {
		// Killed (a limit, the OOM killer): as the test binary was, so
		// that go test says so.
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if code < 0 {
		code = 128 - code
	}
	os.Exit(code)
}

// gateExec runs argv (a test binary and its flags) as gateExecEnv says,
// as its parent: it replays a passing result kept for the same binary,
// arguments and inputs instead (testcache.go), and keeps the result of a
// run it sees exit 0. It returns the exit code of the run, minus the
// signal that killed it.
func gateExec(argv []string) (int, error) {
	conf := os.Getenv(gateExecEnv)
	var g gateTest
	if err := json.Unmarshal([]byte(conf), &g); err != nil {
		return 0, fmt.Errorf("%s: %w", gateExecEnv, err)
	}
	env := os.Environ()
	for _, k := range g.Unset {
		env = unsetEnv(env, k)
	}
	env = mergeEnv(env, g.Env)

	var results *testResults
	var key testKey
	if g.Landlock && g.Results != "" && g.Private != "" && !slices.ContainsFunc(g.Writable, func(w string) bool { return within(g.Results, w) }) && sameFile(os.Stdout, os.Stderr) {
		dir, err := os.Getwd()
		if err == nil {
			if k, ok := newTestKey(argv, dir, env, conf); ok {
				results, key = &testResults{dir: g.Results, limit: testResultsLimit, now: time.Now}, k
			}
		}
	}
	if results != nil {
		if out, ok := results.lookup(key); ok {
			_, err := os.Stdout.Write(out)
			return 0, err
		}
	}

	cmd := &exec.Cmd{Path: argv[0], Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	writable := g.Writable
	var log string
	out := &cappedBuffer{max: testResultsMaxOutput}
	if results != nil {
		dir, err := os.MkdirTemp(g.Private, "testlog-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		log = filepath.Join(dir, "testlog.txt")
		if err := os.WriteFile(log, nil, 0o600); err != nil {
			return 0, err
		}
		cmd.Args = slices.Concat(argv[:1], []string{"-test.testlogfile=" + log}, argv[1:])
		writable = append(slices.Clip(writable), log)
		// One pipe for both, as go test gives its -exec program.
		w := io.MultiWriter(os.Stdout, out)
		cmd.Stdout, cmd.Stderr = w, w
	}
	cmd.WaitDelay = testWaitDelay
	state, err := runConfined(cmd, g.Landlock, writable)
	if errors.Is(err, exec.ErrWaitDelay) {
		// As go test fails a test binary whose output outlives it.
		fmt.Fprintf(os.Stdout, "*** Test I/O incomplete %v after exiting.\n", testWaitDelay)
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	code := state.ExitCode()
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		code = -int(ws.Signal())
	}
	if code == 0 && results != nil && !out.over {
		if data, err := readTestLog(log); err == nil {
			_ = results.store(key, data, out.buf.Bytes()) // a result not kept runs again
		}
	}
	return code, nil
}

// runConfined runs cmd to its end, its writes restricted to writable
// when landlock: from a thread restricted for it alone, which ends with
// it (the process's other threads, which keep the test results, are
// not restricted). The signals that stop a test (go test's timeout, ^C)
// are passed on to it. The error is exec.ErrWaitDelay when its output
// outlived it (a process it left holds it).
func runConfined(cmd *exec.Cmd, landlock bool, writable []string) (*os.ProcessState, error) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	started := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, restricted, ends with this
		// goroutine, after the test binary (Pdeathsig is the thread's).
		runtime.LockOSThread()
		if landlock {
			if err := landlockWrites(writable); err != nil {
				started <- err
				return
			}
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		done <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			if _, exited := errors.AsType[*exec.ExitError](err); err != nil && !exited {
				return cmd.ProcessState, err
			}
			return cmd.ProcessState, nil
		}
	}
}

// sameFile says whether a and b are the same open file (go test gives
// its -exec program one pipe as both stdout and stderr).
func sameFile(a, b *os.File) bool {
	fa, err1 := a.Stat()
	fb, err2 := b.Stat()
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// unsetEnv returns env without name.
func unsetEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return out
}
