package git

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"sync"
)

// indexEntry is one entry of a git index file, as git wrote it: the stat
// data it recorded of the file, its mode, stage and flags, and its path.
type indexEntry struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32
	dev, ino, mode, uid, gid, size           uint32
	// assumeValid, skipWorktree and intentToAdd are the entry's flags
	// (git update-index --assume-unchanged, --skip-worktree, git add -N).
	assumeValid, skipWorktree, intentToAdd bool
	stage                                  int
	path                                   string
	// name is the entry's path (raw bytes; valid only during the
	// callback). A parse by parseIndexNames sets only name, not path:
	// a string per entry is most of a parse's cost.
	name []byte
	// oid is the entry's object id (raw bytes; valid only during the
	// callback).
	oid []byte
}

// readIndex reads the index file at p (versions 2 to 4, SHA-1 or SHA-256
// object ids) and calls fn with each entry in order; false when the file
// cannot be read, is split or sparse, or is no index git writes (fn may
// have been called).
func readIndex(p string, fn func(e *indexEntry)) bool {
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	return readIndexData(data, fn)
}

// readIndexData is readIndex of the index file's content.
func readIndexData(data []byte, fn func(e *indexEntry)) bool {
	// The entries do not say how long their object ids are: the layout
	// that ends exactly at the extensions and checksum is the one.
	for _, hashLen := range []int{20, 32} {
		if parseIndex(data, hashLen, nil) {
			return parseIndex(data, hashLen, fn)
		}
	}
	return false
}

// parseIndex walks the entries of the index data whose object ids are
// hashLen bytes, calling fn (when not nil) with each; false when data is
// no such index.
func parseIndex(data []byte, hashLen int, fn func(e *indexEntry)) bool {
	return parseIndexExt(data, hashLen, fn, nil)
}

// parseIndexExt is parseIndex that also calls ext (when not nil) with each
// extension's signature and content, after the entries.
func parseIndexExt(data []byte, hashLen int, fn func(e *indexEntry), ext func(sig string, body []byte)) bool {
	return walkIndex(data, hashLen, fn, ext, true)
}

// parseIndexNames is parseIndexExt whose entries have their name but no
// path (indexEntry.name).
func parseIndexNames(data []byte, hashLen int, fn func(e *indexEntry), ext func(sig string, body []byte)) bool {
	return walkIndex(data, hashLen, fn, ext, false)
}

// walkIndex is parseIndexExt, setting each entry's path only when paths.
func walkIndex(data []byte, hashLen int, fn func(e *indexEntry), ext func(sig string, body []byte), paths bool) bool {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" {
		return false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	count := int(binary.BigEndian.Uint32(data[8:12]))
	if version < 2 || version > 4 {
		return false
	}
	end := len(data) - hashLen
	off := 12
	var prev []byte
	var e indexEntry
	for range count {
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return false
		}
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		var ext uint16
		if version >= 3 && flags&0x4000 != 0 {
			fixed += 2
			if off+fixed > end {
				return false
			}
			ext = binary.BigEndian.Uint16(data[off+40+hashLen+2:])
		}
		start := off + fixed
		var name []byte
		next := 0
		if version == 4 {
			strip, n := indexVarint(data[start:end])
			if n == 0 || strip > uint64(len(prev)) {
				return false
			}
			nul := bytes.IndexByte(data[start+n:end], 0)
			if nul < 0 {
				return false
			}
			keep := len(prev) - int(strip)
			name = append(prev[:keep:keep], data[start+n:start+n+nul]...)
			next = start + n + nul + 1
		} else {
			nul := bytes.IndexByte(data[start:end], 0)
			if nul < 0 {
				return false
			}
			name = data[start : start+nul]
			next = off + (fixed+nul+8)&^7
		}
		if fn != nil {
			u32 := func(i int) uint32 { return binary.BigEndian.Uint32(data[off+4*i:]) }
			e = indexEntry{
				ctimeSec: u32(0), ctimeNsec: u32(1), mtimeSec: u32(2), mtimeNsec: u32(3),
				dev: u32(4), ino: u32(5), mode: u32(6), uid: u32(7), gid: u32(8), size: u32(9),
				assumeValid: flags&0x8000 != 0, skipWorktree: ext&0x4000 != 0, intentToAdd: ext&0x2000 != 0,
				stage: int(flags>>12) & 3, name: name, oid: data[off+40 : off+40+hashLen],
			}
			if paths {
				e.path = string(name)
			}
			fn(&e)
		}
		prev, off = name, next
	}
	// Extensions, then the checksum. A split index ("link": the entries
	// are in another file too) or a sparse one ("sdir": a directory
	// stands for its files) is not read.
	for off+8 <= end {
		sig := string(data[off : off+4])
		if sig == "link" || sig == "sdir" {
			return false
		}
		size := int(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if ext != nil && size >= 0 && off+8+size <= end {
			ext(sig, data[off+8:off+8+size])
		}
		off += 8 + size
	}
	return off == end
}

// indexVarint decodes git's offset varint (index version 4); n is 0 when b
// holds none.
func indexVarint(b []byte) (val uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val, n = uint64(c&127), 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		val++
		c = b[n]
		n++
		val = val<<7 + uint64(c&127)
	}
	return val, n
}

// indexPaths identifies the entries (path, mode, stage) of the index file
// at p, whatever their stat data: what decides which files are untracked.
// git refreshes an index's stat data unasked (git diff rewrites the index
// when it finds a file touched but unchanged, whatever GIT_OPTIONAL_LOCKS
// says); that changes nothing here. "" when the file cannot be read. The
// identity holds within this process only: it is a hash of the entries
// with a seed chosen at start, which nobody outside can aim a collision
// at (issue 35: SHA-256 of a 23k-entry index was most of its cost).
func indexPaths(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	d, _ := digestIndex(data)
	return d.paths
}

// indexDigest is what is asked of an index file's entries but their stat
// data and objects: their identity (indexPaths) and the gitlinks.
type indexDigest struct {
	paths    string
	gitlinks []string // the paths of the gitlink entries (mode 160000)
}

// digestIndex parses the index data once for its digest; false (and no
// paths) when it is no index this parser reads.
func digestIndex(data []byte) (indexDigest, bool) {
	g := newIndexDigester(len(data))
	for _, hashLen := range []int{20, 32} {
		if parseIndex(data, hashLen, nil) {
			if !parseIndexNames(data, hashLen, g.add, nil) {
				return indexDigest{}, false
			}
			return g.digest(), true
		}
	}
	return indexDigest{}, false
}

// indexDigester makes an index's digest from its entries, in order.
type indexDigester struct {
	buf   []byte
	n     int
	links []string
}

func newIndexDigester(size int) *indexDigester {
	return &indexDigester{buf: make([]byte, 0, min(size, 64<<10))}
}

// add adds the entry e (its name, mode and stage).
func (g *indexDigester) add(e *indexEntry) {
	g.buf = binary.BigEndian.AppendUint32(g.buf, e.mode)
	g.buf = append(g.buf, byte(e.stage))
	g.buf = append(g.buf, e.name...)
	g.buf = append(g.buf, 0)
	if e.mode == 0o160000 {
		g.links = append(g.links, string(e.name))
	}
	g.n++
}

// digest is the digest of the entries added.
func (g *indexDigester) digest() indexDigest {
	return indexDigest{
		paths:    fmt.Sprintf("%d %d %016x %016x", g.n, len(g.buf), maphash.Bytes(indexSeeds[0], g.buf), maphash.Bytes(indexSeeds[1], g.buf)),
		gitlinks: g.links,
	}
}

// indexDigests keeps the digests of the index files read, by their
// content: the index files a checkpoint, the untracked listing and the
// gitlink checks read are mostly versions read before, which are not
// parsed again (issue 35: a 23k-entry index was parsed about six times
// per checkpoint). The key is a hash of the whole file with the process's
// seeds (indexPaths): reading and hashing the file costs a fraction of
// parsing it.
type indexDigests struct {
	mu     sync.Mutex
	byData map[[2]uint64]indexDigest
	parses int // how many indexes indexDigest parsed (for tests)
}

// maxIndexDigests bounds the digests kept (a few per worktree in use).
const maxIndexDigests = 32

// indexDigest is the digest of the index file at p; false when it cannot
// be read or parsed here (split, sparse, unknown). The gitlinks are the
// caller's to keep.
func (r *Repo) indexDigest(p string) (indexDigest, bool) {
	data, err := os.ReadFile(p)
	if err != nil {
		return indexDigest{}, false
	}
	key := contentKey(data)
	if d, ok := r.indexes.get(key); ok {
		return d, true
	}
	d, ok := digestIndex(data)
	r.indexes.parsed()
	if ok {
		r.indexes.put(key, d)
	}
	return d, ok
}

// contentKey is the cache key of an index file's content.
func contentKey(data []byte) [2]uint64 {
	return [2]uint64{maphash.Bytes(indexSeeds[0], data), maphash.Bytes(indexSeeds[1], data)}
}

// get is the digest of the index content whose key is key, if known (a
// copy).
func (c *indexDigests) get(key [2]uint64) (indexDigest, bool) {
	if c == nil {
		return indexDigest{}, false
	}
	c.mu.Lock()
	d, hit := c.byData[key]
	c.mu.Unlock()
	if !hit {
		return indexDigest{}, false
	}
	d.gitlinks = slices.Clone(d.gitlinks)
	return d, true
}

// parsed counts a parse of indexDigest.
func (c *indexDigests) parsed() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.parses++
	c.mu.Unlock()
}

// put records d as the digest of the index content whose key is key.
func (c *indexDigests) put(key [2]uint64, d indexDigest) {
	if c == nil {
		return
	}
	d.gitlinks = slices.Clone(d.gitlinks)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byData == nil || len(c.byData) >= maxIndexDigests {
		c.byData = map[[2]uint64]indexDigest{}
	}
	c.byData[key] = d
}

// indexSeeds seed indexPaths's hashes, once per process.
var indexSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
