package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Fresh markers (issue 35). A recycled tree keeps the files nobody
// changed, and "nobody changed" cannot rest on the stat data the index
// recorded alone: a file rewritten with the same size and its
// modification time set back, in the very clock tick in which git wrote
// it, keeps the change time git recorded (the kernel stamps change times
// with a coarse clock). A change time cannot be set back, though. So when
// a tree has been made a fresh checkout (checked out, prepared or
// restored, before any command ran in it), markFresh writes a marker into
// its admin directory — which no sandboxed command can write: the common
// git directory is bound read-only — in a later clock tick than every
// file git wrote. Every change to the tree from then on, whoever makes it,
// stamps a change time at or after the marker's; when the tree is
// retired its marker's change time goes with it (spentFresh), and the
// restore writes again every file whose change time is at or after it,
// whatever its other stat data says. A tree without a marker is never
// recycled.

// freshMarker is the marker's name in a worktree's admin directory
// (a name git gives nothing), spentFresh the file of a spent tree that
// holds the marker's change time ("<seconds> <nanoseconds>").
const (
	freshMarker = "autarch-fresh"
	spentFresh  = "fresh"
)

// markFresh records that the worktree whose admin directory is gitDir
// is, now, a fresh checkout that nothing but git wrote: the marker's
// change time is in a later tick than the change time of every file git
// wrote before the call. A tree whose marking failed is simply never
// recycled (freshSince), so a failure needs no handling.
func markFresh(gitDir string) error {
	p := filepath.Join(gitDir, freshMarker)
	_ = os.Remove(p) // a new inode: its change time is this call's
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("mark the worktree fresh: %w", err)
	}
	defer f.Close()
	var first, now unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &first); err != nil {
		return fmt.Errorf("mark the worktree fresh: %w", err)
	}
	// Created after git exited, the marker is no older than any file git
	// wrote, but may share their tick: touch it until its change time
	// moves on (at once where the file system stamps fine-grained times
	// after a stat, within a clock tick elsewhere).
	deadline := time.Now().Add(time.Second)
	for {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("mark the worktree fresh: %w", err)
		}
		if err := unix.Fstat(int(f.Fd()), &now); err != nil {
			return fmt.Errorf("mark the worktree fresh: %w", err)
		}
		if timespecBefore(first.Ctim, now.Ctim) {
			return nil
		}
		if time.Now().After(deadline) {
			_ = os.Remove(p)
			return errors.New("mark the worktree fresh: the file system's change time does not advance")
		}
		time.Sleep(250 * time.Microsecond)
	}
}

// markTreeFresh marks the worktree at path, which git has just checked
// out, fresh (markFresh); one whose marking failed is used once and not
// recycled.
func (r *Repo) markTreeFresh(path string) {
	loc, err := r.git.locate(path)
	if err == nil && loc.gitDir != r.commonDir && samePath(loc.top, path) {
		_ = markFresh(loc.gitDir)
	}
}

// freshSince is the change time of the fresh marker of the worktree whose
// admin directory is gitDir; false when it has none (or not one this
// package wrote: one plain file of ours).
func freshSince(gitDir string) (unix.Timespec, bool) {
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(gitDir, freshMarker), &st); err != nil {
		return unix.Timespec{}, false
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 1 || st.Uid != uint32(os.Getuid()) {
		return unix.Timespec{}, false
	}
	return st.Ctim, true
}

// formatSince and parseSince write and read spentFresh's content.
func formatSince(t unix.Timespec) []byte {
	sec, nsec := t.Unix()
	return []byte(strconv.FormatInt(sec, 10) + " " + strconv.FormatInt(nsec, 10) + "\n")
}

func parseSince(b []byte) (unix.Timespec, bool) {
	sec, nsec, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	s, err1 := strconv.ParseInt(sec, 10, 64)
	n, err2 := strconv.ParseInt(nsec, 10, 64)
	if !ok || err1 != nil || err2 != nil || s <= 0 || n < 0 || n >= 1e9 {
		return unix.Timespec{}, false
	}
	return unix.NsecToTimespec(s*1e9 + n), true
}

// timespecBefore reports whether a is before b.
func timespecBefore(a, b unix.Timespec) bool {
	return a.Sec < b.Sec || a.Sec == b.Sec && a.Nsec < b.Nsec
}
