package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A command that has the network shares the host's network namespace,
// and with it the host's abstract unix sockets, which no mount, mask or
// file permission guards: X11's @/tmp/.X11-unix/X0 (any process of the
// user may type into the user's terminals through it), a session bus,
// an IDE's helper. Landlock's scopes (ABI 6, Linux 6.12) close them: a
// process in a scoped domain connects to no abstract socket and signals
// no process made outside its domain. Every sandboxed command starts in
// such a domain (nothing else is restricted: files and mounts are
// bubblewrap's), from a thread of its own: Landlock restricts the
// calling thread, and a child inherits the domain of the thread that
// made it.

// landlockScopes are the scopes a command's domain gets here, 0 when the
// kernel has none.
func landlockScopes() uint64 {
	if landlockVersion() < 6 {
		return 0
	}
	return unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
}

// landlockScope restricts the calling thread (and what it makes) to
// scopes. The thread must be locked, and never serve other goroutines
// again.
func landlockScope(scopes uint64) error {
	attr := unix.LandlockRulesetAttr{Scoped: scopes}
	fd, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset (scopes): %w", errno)
	}
	defer syscall.Close(int(fd))
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self (scopes): %w", errno)
	}
	return nil
}

// startScoped starts cmd in a domain of scopes (none: as cmd.Start). The
// thread that made it stays until done is closed: bubblewrap's
// --die-with-parent is a parent-death signal, sent when the thread that
// made the process ends, not the process.
func startScoped(cmd *exec.Cmd, scopes uint64, done <-chan struct{}) error {
	if scopes == 0 {
		return cmd.Start()
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread, restricted for good, ends with
		// this goroutine.
		if err := landlockScope(scopes); err != nil {
			started <- err
			return
		}
		err := cmd.Start()
		started <- err
		if err == nil {
			<-done
		}
	}()
	return <-started
}
