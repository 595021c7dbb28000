package tools

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// treeWatch follows the changes of a session's tree between two mask
// decisions (issue 35: deciding the masks stat-ed every file of a
// 23k-file tree before each command). It watches every directory the
// decision's walk entered with inotify: a file created, written, changed
// in its attributes, moved or deleted in one is reported by name, whoever
// changed it (a sandboxed command through its bind mount, Autarch's own
// git or tools, the user). Events are read only when the next decision is
// made; anything the watch cannot follow exactly — a lost event (the
// kernel's queue overflowed), a directory moved or deleted, a watch that
// could not be added — makes that decision walk the whole tree again.
//
// What it cannot see: a file written through a hard link from outside
// the watched directories, or through a shared memory mapping after its
// last close. Neither writes a secret the writer did not already hold,
// and a sandboxed command's processes end with it.
type treeWatch struct {
	fd   int
	root string
	dirs map[int32]string // watch descriptor → directory, relative ("." the root)
	// max is how many directories it may watch: a share of the user's
	// inotify watches, which editors' file watchers need too.
	max  int
	lost bool
	buf  []byte
	// made are the names, since the last decision took them (relinked),
	// that name a file made in place in a watched directory (created or
	// hard-linked: IN_CREATE), followed through moves; unlinked is set
	// when one stopped naming it (unlinked, moved over, or moved where
	// the watch did not see it arrive). Such a name may have been a hard
	// link written through, so that the file's other names changed
	// unseen (redteam s10, 03).
	made     map[string]bool
	unlinked bool
}

// watchShare is the part of the user's inotify watches
// (fs.inotify.max_user_watches) one tree watch may take; a tree with more
// directories is walked before each decision instead.
const watchShare = 8

// watchEvents are the events that may change a mask decision.
const watchEvents = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_DONT_FOLLOW | syscall.IN_ONLYDIR

// newTreeWatch starts an empty watch of root; nil when inotify is not
// available (every decision then walks).
func newTreeWatch(root string) *treeWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return nil
	}
	limit := 8192 // the kernel's default
	if data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && n > 0 {
			limit = n
		}
	}
	return &treeWatch{fd: fd, root: root, dirs: map[int32]string{}, max: limit / watchShare, buf: make([]byte, 64<<10)}
}

// add watches the directory rel (slash-separated, "." the root); a watch
// that cannot be added loses the watch.
func (w *treeWatch) add(rel string) {
	if w.lost {
		return
	}
	if len(w.dirs) >= w.max {
		w.lost = true
		return
	}
	wd, err := syscall.InotifyAddWatch(w.fd, filepath.Join(w.root, filepath.FromSlash(rel)), watchEvents)
	if err != nil {
		w.lost = true
		return
	}
	w.dirs[int32(wd)] = rel
}

// full reports whether the watch took all the directories it may.
func (w *treeWatch) full() bool { return len(w.dirs) >= w.max }

// close releases the watch.
func (w *treeWatch) close() {
	if w != nil {
		_ = syscall.Close(w.fd)
	}
}

// treeChanges is what changed in the watched directories since the last
// read: paths of files (or anything but a directory) and new directories.
type treeChanges struct {
	paths   map[string]bool
	newDirs []string
	// created and unlinked are the paths a new name came to (made,
	// hard-linked or moved in) and the paths a name was unlinked from
	// (what a workflow's passes over its tracked files need to know:
	// a hard link made and unlinked since leaves only its own name).
	created, unlinked map[string]bool
}

// changes reads the events queued since the last call; ok is false when
// they do not say exactly what changed (walk the tree instead).
func (w *treeWatch) changes() (treeChanges, bool) {
	ch := treeChanges{paths: map[string]bool{}, created: map[string]bool{}, unlinked: map[string]bool{}}
	if w.made == nil {
		w.made = map[string]bool{}
	}
	movedMade := map[uint32]bool{} // moves, by cookie, of a name in made
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN || n == 0 {
			break
		}
		if err != nil {
			return ch, false
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&w.buf[off]))
			nameBytes := w.buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			name := strings.TrimRight(string(nameBytes), "\x00")
			mask := ev.Mask
			dir, known := w.dirs[ev.Wd]
			switch {
			case mask&(syscall.IN_Q_OVERFLOW|syscall.IN_UNMOUNT) != 0:
				w.lost = true
			case mask&syscall.IN_IGNORED != 0:
				delete(w.dirs, ev.Wd)
				w.lost = true // a watched directory went away
			case !known:
				w.lost = true
			case mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF) != 0:
				w.lost = true
			case name == "":
				w.lost = true // the directory's own mode or times: who may read what inside
			case mask&syscall.IN_ISDIR != 0:
				if mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
					ch.newDirs = append(ch.newDirs, path.Join(dir, name))
				} else {
					w.lost = true // moved away, deleted or its mode changed: walk again
				}
			default:
				p := path.Join(dir, name)
				ch.paths[p] = true
				if mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
					ch.created[p] = true
				}
				if mask&syscall.IN_DELETE != 0 {
					ch.unlinked[p] = true
				}
				w.follow(p, mask, ev.Cookie, movedMade)
			}
		}
	}
	if len(movedMade) > 0 {
		w.unlinked = true // moved where the watch did not see it arrive
	}
	return ch, !w.lost
}

// follow keeps made and unlinked (treeWatch) for an event of mask on the
// name p, a file's; movedMade holds the moves of a made name not yet seen
// arriving.
func (w *treeWatch) follow(p string, mask, cookie uint32, movedMade map[uint32]bool) {
	switch {
	case mask&syscall.IN_CREATE != 0:
		w.made[p] = true
	case mask&syscall.IN_DELETE != 0:
		w.unlinked = w.unlinked || w.made[p]
		delete(w.made, p)
	case mask&syscall.IN_MOVED_FROM != 0:
		if w.made[p] {
			movedMade[cookie] = true
			delete(w.made, p)
		}
	case mask&syscall.IN_MOVED_TO != 0:
		w.unlinked = w.unlinked || w.made[p] // moved over
		delete(w.made, p)
		if movedMade[cookie] {
			delete(movedMade, cookie)
			w.made[p] = true
		}
	}
}

// relinked reports whether a name made since the last call stopped naming
// its file (made, unlinked), and begins again.
func (w *treeWatch) relinked() bool {
	unlinked := w.unlinked
	w.made, w.unlinked = nil, false
	return unlinked
}
