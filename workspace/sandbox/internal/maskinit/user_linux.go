package maskinit

import (
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"unsafe"
)

// runAs runs command as user, in a user namespace of its own that maps
// user's ids to the helper's (root of the sandbox's namespace), from this
// thread, whose only capability left is CAP_SETFCAP (the kernel requires
// it of the process that maps the root of its namespace into another), in
// the sandbox's namespace, which the command cannot reach; the helper
// drops it too once the command started. The new namespace gives the
// child a full set again, but it executes the command as a user other
// than root, with no_new_privs, so the command starts with none; and
// holding none in the sandbox's namespace, which owns the mounts, it
// cannot touch a mask. The helper stays the command's parent: it passes
// signals on, waits for it and ends as it ended. runAs returns only when
// the command could not start.
func runAs(user User, command, env []string) error {
	files, err := inheritedFiles()
	if err != nil {
		return err
	}
	attr := &syscall.ProcAttr{Env: env, Files: files, Sys: &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: user.UID, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: user.GID, HostID: 0, Size: 1}},
		Pdeathsig:   syscall.SIGKILL, // as bwrap gives its child
	}}
	// A signal the helper was started ignoring (nohup's SIGHUP, a
	// background shell's SIGINT) stays ignored, so that the command
	// inherits it as it does from bwrap: a handler would reset it to the
	// default in the command.
	signals := make(chan os.Signal, 8)
	for _, s := range []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2} {
		if !signal.Ignored(s) {
			signal.Notify(signals, s)
		}
	}
	pid := 0
	err = execvp(command, env, func(path string) error {
		// Forking costs a user namespace: first skip what is no program.
		var st syscall.Stat_t
		if err := syscall.Stat(path, &st); err != nil {
			return err
		}
		if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Mode&0o111 == 0 {
			return syscall.EACCES
		}
		var err error
		pid, err = syscall.ForkExec(path, command, attr)
		return err
	})
	if err != nil {
		return err
	}
	if err := dropCapabilities(noCapability); err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		return err
	}
	go func() {
		for s := range signals {
			syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	var status syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &status, 0, nil)
		if err == nil {
			break
		}
		if err != syscall.EINTR {
			// The command is gone without a status: end with it.
			os.Stderr.WriteString("autarch sandbox: waiting for the command: " + err.Error() + "\n")
			os.Exit(ExitCode)
		}
	}
	if status.Signaled() {
		dieBy(status.Signal())
	}
	os.Exit(status.ExitStatus())
	return nil
}

// inheritedFiles returns the descriptors the command inherits: those of
// the helper that are not closed on exec, at the same numbers, as if the
// helper had executed it.
func inheritedFiles() ([]uintptr, error) {
	dir, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, errors.New("listing open files: " + err.Error())
	}
	defer syscall.Close(dir)
	var fds []int
	buf := make([]byte, 4096)
	for {
		n, err := syscall.ReadDirent(dir, buf)
		if err != nil {
			return nil, errors.New("listing open files: " + err.Error())
		}
		if n == 0 {
			break
		}
		_, _, names := syscall.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			fd, err := strconv.Atoi(name)
			if err != nil || fd == dir {
				continue
			}
			flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
			if errno == 0 && flags&syscall.FD_CLOEXEC == 0 {
				fds = append(fds, fd)
			}
		}
	}
	files := []uintptr{}
	for _, fd := range fds {
		for len(files) <= fd {
			files = append(files, ^uintptr(0)) // closed in the command
		}
		files[fd] = uintptr(fd)
	}
	return files, nil
}

// dieBy ends the helper by signal sig, as the command ended, with the
// kernel's default action (not the Go runtime's, which exits with status 2
// after SIGQUIT or SIGSEGV); it exits with 128+sig if it is still alive.
func dieBy(sig syscall.Signal) {
	var action [4]uintptr // struct sigaction: SIG_DFL, no flags, empty mask
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&action)), 0, 8, 0, 0)
	set := uint64(1) << (uint(sig) - 1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 1 /* SIG_UNBLOCK */, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
	os.Exit(128 + int(sig))
}
