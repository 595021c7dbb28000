package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock (Linux 5.13 and later) restricts what a process and its
// descendants may do to files, whatever the mounts say: the gates' go
// test runs the test binaries, which are the agent's code, through the
// running binary (gateExecPath), which forbids them to write anywhere but
// the command's own writable trees, so that they cannot write the gate's
// build cache while the go command itself can (gatecache.go). Bubblewrap
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
	attr := unix.LandlockRulesetAttr{Handled_access_fs: access}
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
}

func init() {
	if len(os.Args) < 2 || os.Args[0] != gateExecPath {
		return
	}
	if err := gateExec(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "autarch sandbox: running the test binary %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// gateExec runs argv (a test binary and its flags) as gateExecEnv says:
// it never returns but with an error.
func gateExec(argv []string) error {
	var g gateTest
	if err := json.Unmarshal([]byte(os.Getenv(gateExecEnv)), &g); err != nil {
		return fmt.Errorf("%s: %w", gateExecEnv, err)
	}
	env := os.Environ()
	for _, k := range g.Unset {
		env = unsetEnv(env, k)
	}
	env = mergeEnv(env, g.Env)
	runtime.LockOSThread() // Landlock restricts this thread, which then executes the binary
	if g.Landlock {
		if err := landlockWrites(g.Writable); err != nil {
			return err
		}
	}
	return syscall.Exec(argv[0], argv, env)
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
