// Package maskinit is the first program of a sandboxed command that masks
// many files. bwrap masks a file with one bind mount, and after each bind
// it reads and parses /proc/self/mountinfo again, whose length grows with
// every mask: 100 masks cost ~60 ms, 200 ~170 ms. Instead, bwrap sets up
// everything but those files and runs this helper with CAP_SYS_ADMIN and
// CAP_SETPCAP in the sandbox's user namespace; the helper binds /dev/null
// over each file with plain mount(2), drops every capability for good
// (bounding, ambient, inheritable, permitted and effective sets; no new
// privileges) and executes the command, which therefore starts exactly as
// under bwrap's own masks, in the same process. For a user other than
// root (User), it starts the command as that user in a user namespace of
// its own instead, as bwrap's nesting would have, and waits for it.
//
// The helper is the running binary executed again (through a file
// descriptor, so that replacing the binary on disk does not matter): the
// init function of this package takes over a process whose first argument
// is marker. This package imports only the standard library's lowest
// packages (not even golang.org/x/sys/unix, which Go initialises after
// every github.com package), so that the runtime reaches it about a
// millisecond after the exec, before the rest of the binary is
// initialised.
package maskinit

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// marker is the helper's first argument.
const marker = "autarch-sandbox-maskinit"

// ExitCode is the helper's exit status when it cannot mask a file or drop
// its capabilities: the command did not run.
const ExitCode = 125

// User is the user a command runs as when the sandbox's user namespace
// maps only root (an unprivileged bwrap given --uid 0 --gid 0, so that
// the helper's capabilities are in the namespace that owns the mounts):
// the helper then starts the command in a user namespace of its own that
// maps UID and GID (the user's ids on the host) to root outside it, as
// bwrap's own nested namespace would have.
type User struct{ UID, GID int }

// Argv returns the helper's argv: exe is its path inside the sandbox, masks
// the absolute files it masks (and, each with a slash after it, the
// folders it pins onto themselves first, parents first), env the command's environment (bwrap gives
// the helper none: nothing from the command's environment, LD_PRELOAD or
// LD_LIBRARY_PATH, reaches a process that holds capabilities), user who
// runs the command (nil: the helper executes it in its own place) and
// command what it then executes, looked up in env's PATH as execvp does.
func Argv(exe string, masks, env []string, user *User, command []string) []string {
	out := make([]string, 0, 7+len(masks)+len(env)+len(command))
	out = append(out, exe, marker, strconv.Itoa(len(masks)))
	out = append(out, masks...)
	out = append(out, strconv.Itoa(len(env)))
	out = append(out, env...)
	if user == nil {
		out = append(out, "0")
	} else {
		out = append(out, "2", strconv.Itoa(user.UID), strconv.Itoa(user.GID))
	}
	return append(out, command...)
}

func init() {
	if len(os.Args) < 2 || os.Args[1] != marker {
		return
	}
	runtime.LockOSThread() // capabilities belong to a thread: the one that executes the command
	err := start(os.Args[0], os.Args[2:])
	os.Stderr.WriteString("autarch sandbox: " + err.Error() + "; the command did not run. " +
		"Run it again; if this persists, run `autarch doctor` and report this message.\n")
	os.Exit(ExitCode)
}

// start masks the files, drops the capabilities and executes the command;
// it returns only on failure.
func start(exe string, args []string) error {
	masks, env, user, command, err := parse(args)
	if err != nil {
		return err
	}
	// bwrap's child is process 2 of the sandbox's PID namespace (bwrap's
	// monitor is 1): a helper started anywhere else refuses to mount.
	if os.Getpid() != 2 {
		return errors.New("the mask helper runs only as the first process of a sandboxed command")
	}
	if err := mask(masks); err != nil {
		return err
	}
	// Mapping the namespace's root into the command's own namespace takes
	// CAP_SETFCAP (Linux 5.12 on): runAs drops it once the command started.
	keep := noCapability
	if user != nil {
		keep = capSetfcap
	}
	if err := dropCapabilities(keep); err != nil {
		return err
	}
	if fd, ok := strings.CutPrefix(exe, "/proc/self/fd/"); ok {
		if n, err := strconv.Atoi(fd); err == nil {
			syscall.CloseOnExec(n) // the binary is no business of the command
		}
	}
	if user != nil {
		return runAs(*user, command, env)
	}
	return execvp(command, env, func(path string) error { return syscall.Exec(path, command, env) })
}

// parse reads Argv's arguments after the marker.
func parse(args []string) (masks, env []string, user *User, command []string, err error) {
	list := func() ([]string, bool) {
		if len(args) == 0 {
			return nil, false
		}
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || n > len(args)-1 {
			return nil, false
		}
		l := args[1 : 1+n]
		args = args[1+n:]
		return l, true
	}
	malformed := errors.New("the mask helper was started with malformed arguments")
	masks, ok1 := list()
	env, ok2 := list()
	ids, ok3 := list()
	if !ok1 || !ok2 || !ok3 || len(args) == 0 {
		return nil, nil, nil, nil, malformed
	}
	switch len(ids) {
	case 0:
	case 2:
		uid, err1 := strconv.Atoi(ids[0])
		gid, err2 := strconv.Atoi(ids[1])
		if err1 != nil || err2 != nil || uid < 0 || gid < 0 {
			return nil, nil, nil, nil, malformed
		}
		user = &User{UID: uid, GID: gid}
	default:
		return nil, nil, nil, nil, malformed
	}
	return masks, env, user, args, nil
}

// mask binds /dev/null over each file, and pins each folder (a path that
// ends with a slash; it comes before the files inside it). A file or
// folder that is missing is skipped (Spec.Masked's rule: it has nothing to hide); one reached through a
// symlink, or that became a folder, fails: the path was resolved and
// checked on the host, so either means it changed since.
func mask(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	null, err := syscall.Open("/dev/null", oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return errors.New("opening /dev/null: " + err.Error())
	}
	defer syscall.Close(null)
	var st syscall.Stat_t
	if err := syscall.Fstat(null, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != 1<<8|3 {
		return errors.New("/dev/null is not the null device")
	}
	src := "/proc/self/fd/" + strconv.Itoa(null)
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			return errors.New("could not mask " + strconv.Quote(p) + ": not an absolute path")
		}
		folder := len(p) > 1 && strings.HasSuffix(p, "/")
		p = strings.TrimSuffix(p, "/") // never a slash that follows a symlink
		fd, err := openNoSymlinks(p)
		if errors.Is(err, syscall.ENOENT) {
			continue
		}
		if err == nil {
			if folder {
				err = pin(fd)
			} else {
				err = bindNull(src, fd)
			}
			syscall.Close(fd)
		}
		if err != nil && folder {
			return errors.New("could not keep " + p + " in place (a command never runs with its masked files movable): " + err.Error())
		}
		if err != nil {
			return errors.New("could not mask " + p + " (a command never runs with its masked files visible): " + err.Error())
		}
	}
	return nil
}

// pin binds the folder opened as fd onto itself, with every mount inside
// it, so that no command can move it (rename(2) refuses a mount point):
// the masked files inside stay where their masks are.
func pin(fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
	case syscall.S_IFLNK:
		return errors.New("it is a symbolic link now")
	default:
		return errors.New("it is no folder now")
	}
	self := "/proc/self/fd/" + strconv.Itoa(fd)
	return syscall.Mount(self, self, "", syscall.MS_BIND|syscall.MS_REC, "")
}

// bindNull binds src (/dev/null) over the file opened as fd.
func bindNull(src string, fd int) error {
	var st syscall.Stat_t
	err := syscall.Fstat(fd, &st)
	switch {
	case err != nil:
	case st.Mode&syscall.S_IFMT == syscall.S_IFDIR:
		err = errors.New("it is a folder now")
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		err = errors.New("it is a symbolic link now")
	default:
		// The target is the opened file itself, never a path looked up again.
		err = syscall.Mount(src, "/proc/self/fd/"+strconv.Itoa(fd), "", syscall.MS_BIND, "")
	}
	return err
}

// openNoSymlinks opens p as a path only, refusing a symlink anywhere in it
// (openat2's RESOLVE_NO_SYMLINKS; before Linux 5.6, in its last
// component only).
func openNoSymlinks(p string) (int, error) {
	path, err := syscall.BytePtrFromString(p)
	if err != nil {
		return -1, err
	}
	how := openHow{flags: oPath | syscall.O_CLOEXEC | syscall.O_NOFOLLOW, resolve: resolveNoSymlinks}
	dirfd := atFdcwd
	fd, _, errno := syscall.Syscall6(sysOpenat2, uintptr(dirfd), uintptr(unsafe.Pointer(path)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	switch errno {
	case 0:
		return int(fd), nil
	case syscall.ENOSYS:
		return syscall.Open(p, oPath|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	}
	return -1, errno
}

// prctl is prctl(2), returning its result.
func prctl(option, arg2, arg3 uintptr) (int, error) {
	r, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg2, arg3, 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// capabilities calls capget or capset (sys) on this thread with data.
func capabilities(sys uintptr, data *[2]capData) error {
	hdr := capHeader{version: capabilityVersion3}
	if _, _, errno := syscall.RawSyscall(sys, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return errno
	}
	return nil
}

// noCapability and capSetfcap are what dropCapabilities may keep: nothing,
// or CAP_SETFCAP (permitted and effective).
const (
	noCapability = uint32(0)
	capSetfcap   = uint32(1) << 31 // CAP_SETFCAP, in the first word of the sets
)

// dropCapabilities empties every capability set of this thread for good
// but keep (noCapability or capSetfcap, which a second call drops), then
// checks that they are so: the command executed next (even as root in the
// sandbox) starts with none, as under bwrap's --cap-drop ALL.
func dropCapabilities(keep uint32) error {
	fail := func(what string, err error) error {
		return errors.New("dropping capabilities: " + what + ": " + err.Error())
	}
	if _, err := prctl(prSetNoNewPrivs, 1, 0); err != nil {
		return fail("no_new_privs", err)
	}
	for c := uintptr(0); ; c++ {
		in, err := prctl(syscall.PR_CAPBSET_READ, c, 0)
		if err == syscall.EINVAL && c > 0 {
			break // past the kernel's last capability
		}
		if err == nil && in != 0 { // dropping takes CAP_SETPCAP, even a dropped one
			_, err = prctl(syscall.PR_CAPBSET_DROP, c, 0)
		}
		if err != nil {
			return fail("bounding set", err)
		}
	}
	if _, err := prctl(prCapAmbient, prCapAmbientClearAll, 0); err != nil && err != syscall.EINVAL {
		return fail("ambient set", err)
	}
	data := [2]capData{{effective: keep, permitted: keep}}
	if err := capabilities(syscall.SYS_CAPSET, &data); err != nil {
		return fail("capset", err)
	}
	if err := capabilities(syscall.SYS_CAPGET, &data); err != nil {
		return fail("capget", err)
	}
	if data[0].effective != keep || data[0].permitted != keep || data[0].inheritable|data[1].effective|data[1].permitted|data[1].inheritable != 0 {
		return errors.New("dropping capabilities: some remain")
	}
	for c := uintptr(0); ; c++ {
		inBounding, err := prctl(syscall.PR_CAPBSET_READ, c, 0)
		if err != nil {
			break
		}
		ambient, _ := prctl(prCapAmbient, prCapAmbientIsSet, c)
		if inBounding != 0 || ambient > 0 {
			return errors.New("dropping capabilities: capability " + strconv.Itoa(int(c)) + " remains")
		}
	}
	return nil
}

// execvp executes command (with exec, given its path) as execvp(3) does:
// looked up in env's PATH (glibc's default when unset) unless it names a
// path.
func execvp(command, env []string, exec func(path string) error) error {
	name := command[0]
	if strings.Contains(name, "/") {
		if err := exec(name); err != nil {
			return errors.New("executing " + name + ": " + err.Error())
		}
		return nil
	}
	path := "/bin:/usr/bin"
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	err := error(syscall.ENOENT)
	for dir := range strings.SplitSeq(path, ":") {
		if dir == "" {
			dir = "."
		}
		e := exec(dir + "/" + name)
		switch {
		case e == nil:
			return nil
		case errors.Is(e, syscall.EACCES):
			err = e // as execvp: reported when no later entry works
		case errors.Is(e, syscall.ENOENT), errors.Is(e, syscall.ENOTDIR), errors.Is(e, syscall.ELOOP), errors.Is(e, syscall.ENAMETOOLONG):
		default:
			return errors.New("executing " + name + ": " + e.Error())
		}
	}
	return errors.New("executing " + name + ": " + err.Error())
}
