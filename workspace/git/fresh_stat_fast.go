//go:build linux && (amd64 || arm64)

package git

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatatNul is fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) of a
// NUL-terminated name, without copying it (the walk of a restored tree
// stats every file: issue 35).
func fstatatNul(dirfd int, name *byte, st *unix.Stat_t) error {
	_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
