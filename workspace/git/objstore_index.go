package git

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
)

// The filtered store follows the repository's index files by what they
// hold, not by their stat data (issue 35). Git rewrites an index whenever
// it refreshes it (reset --hard, status, diff, a checkout of the same
// tree); the store used to take every such rewrite for new content and
// list every object of every index again (rev-list --indexed-objects:
// 0.1–0.3 s on a 23k-file repository before the first command of each
// recycled worktree and after each checkpoint). Now the store reads the
// index files itself:
//
//   - an index whose entries (mode, stage, object id, path) are those the
//     store covered is skipped whatever its stat data;
//   - of an index that changed, every entry is looked at: a blob the store
//     packs already is checked by its path (a blocked path withholds it
//     and rebuilds the generation, as for a renamed secret), a new one is
//     scanned and packed like any new object;
//   - an index the parser does not read (split, sparse, unknown) makes the
//     update list the indexes with git, as before.

// indexObject is an object an index entry names (its id's raw bytes),
// with its path.
type indexObject struct{ oid, path string }

// indexSnapshot is what one index file holds: a key of its entries and
// the objects they name (gitlinks and intent-to-add entries name none).
type indexSnapshot struct {
	key     string
	objects []indexObject
}

// indexFiles are the repository's index files: the main one and every
// linked worktree's.
func (s *SandboxObjects) indexFiles() []string {
	files := []string{filepath.Join(s.repo.commonDir, "index")}
	if m, _ := filepath.Glob(filepath.Join(s.repo.commonDir, "worktrees", "*", "index")); m != nil {
		files = append(files, m...)
	}
	return files
}

// indexCache keeps the snapshots of the index files a store read, by
// file and version: the next update reads only the indexes that changed
// (a pulse's checkpoint rewrites its worktree's index, not the others').
type indexCache struct {
	mu    sync.Mutex
	snaps map[string]cachedIndex
}

// cachedIndex is an index file's snapshot at one version.
type cachedIndex struct {
	version indexVersion
	snap    indexSnapshot
}

// indexVersion identifies an index file's version: git replaces the file
// (a new inode) whenever it writes it.
type indexVersion struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// versionOf is the version of the file at p; false when it cannot be
// stat-ed.
func versionOf(p string) (indexVersion, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return indexVersion{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return indexVersion{}, false
	}
	return indexVersion{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// snapshot is the index file p's snapshot, read again only when the file
// changed; its results are those of readIndexSnapshot.
func (c *indexCache) snapshot(p string) (snap indexSnapshot, ok, exists bool) {
	before, stable := versionOf(p)
	c.mu.Lock()
	if got, hit := c.snaps[p]; stable && hit && got.version == before {
		c.mu.Unlock()
		return got.snap, true, true
	}
	c.mu.Unlock()
	snap, ok, exists = readIndexSnapshot(p)
	if after, same := versionOf(p); ok && stable && same && after == before {
		c.mu.Lock()
		if c.snaps == nil {
			c.snaps = map[string]cachedIndex{}
		}
		c.snaps[p] = cachedIndex{before, snap}
		c.mu.Unlock()
	}
	return snap, ok, exists
}

// readIndexes reads every index file that exists (those unchanged since
// the last read from the cache); false when one cannot be parsed (then
// git lists them).
func (s *SandboxObjects) readIndexes() (map[string]indexSnapshot, bool) {
	out := map[string]indexSnapshot{}
	for _, f := range s.indexFiles() {
		snap, ok, exists := s.indexes.snapshot(f)
		if !exists {
			continue
		}
		if !ok {
			return nil, false
		}
		out[f] = snap
	}
	return out, true
}

// readIndexSnapshot reads the index file p; exists is false when there is
// none (being replaced, or a worktree without one yet).
func readIndexSnapshot(p string) (snap indexSnapshot, ok, exists bool) {
	h := sha256.New()
	var b [5]byte
	parsed := readIndex(p, func(e *indexEntry) {
		binary.BigEndian.PutUint32(b[:4], e.mode)
		b[4] = byte(e.stage)
		if e.intentToAdd {
			b[4] |= 0x80
		}
		h.Write(b[:])
		h.Write(e.oid)
		h.Write([]byte(e.path))
		h.Write([]byte{0})
		if e.mode&0o170000 == 0o160000 || e.intentToAdd {
			return // a submodule's commit, or no content yet
		}
		snap.objects = append(snap.objects, indexObject{string(e.oid), e.path})
	})
	if !parsed {
		if _, err := os.Stat(p); err != nil {
			return snap, false, false
		}
		return snap, false, true
	}
	snap.key = hex.EncodeToString(h.Sum(nil))
	return snap, true, true
}

// indexKeys are the keys of snapshots, by file.
func indexKeys(snaps map[string]indexSnapshot) map[string]string {
	keys := make(map[string]string, len(snaps))
	for f, snap := range snaps {
		keys[f] = snap.key
	}
	return keys
}

// changedIndexObjects are the objects of the indexes whose key is not the
// one in covered (all of them when covered is nil), with hex ids, but for
// those an index the store covers holds too under the same path: the
// store looked at that object under that path already (a reset worktree's
// index is mostly the main index's entries).
func changedIndexObjects(snaps map[string]indexSnapshot, covered map[string]string) []indexObject {
	var same [][]indexObject // the objects of the covered indexes, each sorted by path as git writes them
	for _, f := range slices.Sorted(maps.Keys(snaps)) {
		if snap := snaps[f]; covered != nil && covered[f] == snap.key {
			same = append(same, snap.objects)
		}
	}
	var out []indexObject
	for _, f := range slices.Sorted(maps.Keys(snaps)) {
		snap := snaps[f]
		if covered != nil && covered[f] == snap.key {
			continue
		}
		at := make([]int, len(same))
		for _, o := range snap.objects {
			if !coveredObject(o, same, at) {
				out = append(out, indexObject{hex.EncodeToString([]byte(o.oid)), o.path})
			}
		}
	}
	return out
}

// coveredObject reports whether one of the path-sorted lists holds o
// (its path and object); at are the lists' positions, advanced by a merge
// of o's list (sorted too) with each. Entries out of order are only found
// less often: then o is looked at again, never skipped wrongly.
func coveredObject(o indexObject, lists [][]indexObject, at []int) bool {
	for i, l := range lists {
		for at[i] < len(l) && l[at[i]].path < o.path {
			at[i]++
		}
		for j := at[i]; j < len(l) && l[j].path == o.path; j++ {
			if l[j].oid == o.oid {
				return true
			}
		}
	}
	return false
}

// selectIndexObjects adds the index objects to sel as selectObjects does
// for what rev-list lists, looking at every path an object has: one under
// a blocked path is withheld (and, packed already, makes the generation be
// rebuilt); one not packed yet is listed to be scanned and packed.
func (s *SandboxObjects) selectIndexObjects(sel *selection, objs []indexObject, have, listed map[string]bool, names map[string]string, objects *[]string) {
	for _, o := range objs {
		if !isOID(o.oid) {
			continue
		}
		if reason, blocked := s.filter.PathBlocked(o.path); blocked {
			if _, done := sel.withheld[o.oid]; !done {
				sel.withheld[o.oid] = fmt.Sprintf("%s: %s", o.path, reason)
			}
			if have[o.oid] {
				sel.repack = true
			}
			continue
		}
		if have[o.oid] || listed[o.oid] {
			continue
		}
		listed[o.oid] = true
		*objects = append(*objects, o.oid)
		names[o.oid] = o.path
	}
}

// indexObjectsOf is what selectObjects looks at of the indexes: the
// objects of those whose key is not in covered; nil (git lists them all)
// when the indexes were not read.
func indexObjectsOf(snaps map[string]indexSnapshot, covered map[string]string) *[]indexObject {
	if snaps == nil {
		return nil
	}
	objs := changedIndexObjects(snaps, covered)
	return &objs
}
