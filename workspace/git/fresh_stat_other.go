//go:build linux && !amd64 && !arm64

package git

import "golang.org/x/sys/unix"

// fstatatNul is fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) of a
// NUL-terminated name.
func fstatatNul(dirfd int, name *byte, st *unix.Stat_t) error {
	return unix.Fstatat(dirfd, unix.BytePtrToString(name), st, unix.AT_SYMLINK_NOFOLLOW)
}
