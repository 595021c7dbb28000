package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/autarch-dev/autarch/workspace"
)

// lazyHarvest holds a session's harvest of its roots until the first
// filtering (Egress.ready). A whole walk of a root done before then
// (grep's search, which lists every directory the ignore rules do not
// hide and asks the gate about every file's path anyway) gives the
// harvest its listing: the files the gate blocks by path, and the
// entries the ignore rules hid, whose directories alone the harvest then
// walks. The harvest reads the same files as its own walk of the root
// would, in the same order.
type lazyHarvest struct {
	roots []string
	run   func()
	once  sync.Once
	// started is set when run begins: a listing given later is dropped.
	started atomic.Bool
	mu      sync.Mutex
	lists   map[string]*harvestListing // by clean root
	// walks counts the roots the harvest walked whole (for tests).
	walks atomic.Int32
}

// start runs the harvest once (nil: nothing to hold).
func (h *lazyHarvest) start() {
	if h == nil {
		return
	}
	h.once.Do(func() {
		h.started.Store(true)
		h.run()
	})
}

// walked counts a root walked whole.
func (h *lazyHarvest) walked() {
	if h != nil {
		h.walks.Add(1)
	}
}

// listing is the listing given for root, or nil.
func (h *lazyHarvest) listing(root string) *harvestListing {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lists[filepath.Clean(root)]
}

// harvestListing is what a whole walk of a root saw that the harvest
// needs. A walk fills it from one goroutine (its walker).
type harvestListing struct {
	// blocked are the regular files the gate blocks by path.
	blocked []string
	// hidden are the entries the ignore rules hid (not entered).
	hidden []hiddenEntry
}

type hiddenEntry struct {
	rel          string
	dir, regular bool
}

// hide records an entry the ignore rules hid.
func (l *harvestListing) hide(rel string, d fs.DirEntry) {
	if l != nil {
		l.hidden = append(l.hidden, hiddenEntry{rel: rel, dir: d.IsDir(), regular: d.Type().IsRegular()})
	}
}

// harvestListingFor is a listing for a whole walk of dir to fill, when
// the egress still waits for one of dir (nil otherwise: the walk need
// not record anything).
func (e *Egress) harvestListingFor(dir string) *harvestListing {
	if e == nil || e.lazy == nil || e.lazy.started.Load() {
		return nil
	}
	for _, r := range e.lazy.roots {
		if sameDir(r, dir) {
			return &harvestListing{}
		}
	}
	return nil
}

// giveListing hands the egress the listing of a whole walk of dir that
// ended without error. A harvest already under way keeps its own walk.
func (e *Egress) giveListing(dir string, l *harvestListing) {
	if e == nil || e.lazy == nil || l == nil || e.lazy.started.Load() {
		return
	}
	h := e.lazy
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.roots {
		if sameDir(r, dir) {
			if h.lists == nil {
				h.lists = map[string]*harvestListing{}
			}
			h.lists[filepath.Clean(r)] = l
		}
	}
}

// listed is giveListing for a walk that has just ended, whose caller
// will filter output next: the harvest the listing completes starts at
// once, in the background (beside the rest of the caller's work, a
// search's reading of the files), rather than at the first filtering,
// which then waits only for what is left of it.
func (e *Egress) listed(dir string, l *harvestListing) {
	if e == nil || e.lazy == nil || l == nil || e.lazy.started.Load() {
		return
	}
	e.giveListing(dir, l)
	go e.lazy.start()
}

// sameDir reports whether two paths name the same directory by their
// absolute, clean form.
func sameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// harvestListed is harvestRoot from a listing: the blocked files the walk
// saw, and those under the directories it did not enter, read in the
// order of harvestRoot's walk (name by name, lexically), up to the same
// number.
func harvestListed(ctx context.Context, gate *workspace.Gate, root string, l *harvestListing) []string {
	var rels []string
	for _, rel := range l.blocked {
		if !harvestSkips(rel) {
			rels = append(rels, rel)
		}
	}
	for _, h := range l.hidden {
		switch {
		case harvestSkips(h.rel):
		case h.dir:
			walkBlocked(ctx, gate, root, filepath.Join(root, filepath.FromSlash(h.rel)), func(rel string, _ fs.DirEntry) bool {
				rels = append(rels, rel)
				return true
			})
		case h.regular:
			if _, blocked := gate.PathBlocked(h.rel); blocked {
				rels = append(rels, h.rel)
			}
		}
	}
	slices.SortFunc(rels, func(a, b string) int { return strings.Compare(walkKey(a), walkKey(b)) })
	var vals []string
	files := 0
	for _, rel := range rels {
		if ctx.Err() != nil || files >= maxHarvestFiles {
			break
		}
		data, err := workspace.ReadSmallFile(filepath.Join(root, filepath.FromSlash(rel)), maxHarvestFile)
		if err != nil {
			continue
		}
		files++
		vals = append(vals, harvestFile(filepath.Base(rel), data)...)
	}
	return vals
}

// harvestSkips reports a path inside a folder the harvest never walks
// (.git, node_modules).
func harvestSkips(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if part == ".git" || part == "node_modules" {
			return true
		}
	}
	return false
}

// walkKey orders slash paths as a walk that sorts each folder's names
// does: element by element ('/' before every byte a name holds).
func walkKey(rel string) string { return strings.ReplaceAll(rel, "/", "\x00") }
