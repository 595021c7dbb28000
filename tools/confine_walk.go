package tools

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/autarch-dev/autarch/workspace"
)

// The mask walk reads a tree's directories in parallel and stats each file
// relative to its open directory (issue 35: the first decision in a
// 23k-file worktree walked it in one goroutine, resolving every file's
// full path again, 0.2–0.3 s of the session's first command).

// maskFile is a regular file the mask walk found: its path, relative
// and slash-separated, and its info as found (nil when it could not be
// stat-ed).
type maskFile struct {
	rel string
	fi  fs.FileInfo
}

// maskDir is what reading one directory found.
type maskDir struct {
	files   []maskFile
	subdirs []string
	// lost: the directory could not be read whole (what it holds may
	// become readable unseen).
	lost bool
}

// maxWalkers bounds the goroutines of one walk.
const maxWalkers = 4

// walkMaskTree visits every directory under root ("." the root itself) but
// those skippedDir names below it, and every regular file in them. enter
// is called for a directory before it is read, skip for a directory not
// entered; both are called one at a time. each is called, in the
// caller's goroutine, with every file found. lost reports that a
// directory could not be read.
func walkMaskTree(root string, enter, skip func(rel string), each func(maskFile)) (lost bool) {
	var (
		mu      sync.Mutex
		cond    = sync.NewCond(&mu)
		pending = []string{"."}
		active  int
	)
	out := make(chan maskDir, 64)
	var wg sync.WaitGroup
	worker := func() {
		defer wg.Done()
		for {
			mu.Lock()
			for len(pending) == 0 && active > 0 {
				cond.Wait()
			}
			if len(pending) == 0 {
				mu.Unlock()
				return
			}
			dir := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			active++
			enter(dir) // before it is read: nothing created meanwhile is missed
			mu.Unlock()
			d := readMaskDir(root, dir)
			mu.Lock()
			for _, sub := range d.subdirs {
				if skippedDir(path.Base(sub)) {
					skip(sub)
				} else {
					pending = append(pending, sub)
				}
			}
			active--
			cond.Broadcast()
			mu.Unlock()
			out <- d
		}
	}
	n := min(max(runtime.GOMAXPROCS(0), 1), maxWalkers)
	wg.Add(n)
	for range n {
		go worker()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	for d := range out {
		lost = lost || d.lost
		for _, f := range d.files {
			each(f)
		}
	}
	return lost
}

// relJoin joins a directory relative to the walk's root and a name.
func relJoin(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// sortWalkOrder sorts absolute paths in the order fs.WalkDir visits
// them (a folder's files by name, a sub-folder's among them by its name).
func sortWalkOrder(paths []string) {
	slices.SortFunc(paths, func(a, b string) int {
		return strings.Compare(strings.ReplaceAll(a, "/", "\x00"), strings.ReplaceAll(b, "/", "\x00"))
	})
}

// readMaskDir reads the directory dir of the walk's root, stat-ing its
// regular files through the open directory.
func readMaskDir(root, dir string) maskDir {
	var d maskDir
	flags := os.O_RDONLY | syscall.O_DIRECTORY
	if dir != "." {
		flags |= syscall.O_NOFOLLOW // swapped for a symlink since it was listed: not followed
	}
	f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(dir)), flags, 0)
	if err != nil {
		d.lost = true
		return d
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		d.lost = true
	}
	for _, e := range entries {
		rel := relJoin(dir, e.Name())
		switch {
		case e.IsDir():
			d.subdirs = append(d.subdirs, rel)
		case e.Type().IsRegular():
			fi, err := workspace.StatAt(f, e.Name())
			switch {
			case err != nil:
				d.files = append(d.files, maskFile{rel, nil}) // masked by its name only
			case fi.Mode().IsRegular():
				d.files = append(d.files, maskFile{rel, fi})
			}
		}
	}
	return d
}
