package git

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// trackedScan is what a stat of a work tree's tracked files found against
// the stat data its index recorded (issue 35: git's own pass stat-ed every
// file of a 23k-file tree, twice a pulse).
type trackedScan struct {
	// maybe are the index entries git must look at: every entry whose
	// file's stat data is not exactly what the index recorded (any of
	// mode, times, size, inode, device, owner), is gone, is racily clean
	// (written in the same clock tick as the index or after it), is a
	// gitlink, is flagged (assume-unchanged, skip-worktree,
	// intent-to-add) or not at stage 0. Every other entry git takes for
	// unchanged without reading it (its ie_match_stat), so a git command
	// given these paths only says what it says given the whole tree.
	maybe []string
	// blind are the maybe entries git itself takes for unchanged: their
	// stat data differs from the index's only below the second, which
	// git (built without USE_NSEC) does not compare, and their file was
	// not written in the index's second by its modification time, which
	// the agent sets (touch -d). A same-size rewrite in the second git
	// last recorded the file passes git's check (redteam s10, 02): these
	// are compared by content (the gates count them changed; staging
	// re-hashes them).
	blind []string
	// links is set when a tracked file has more than one name (written
	// through another, it changes unseen by the tree watch).
	links bool
	// content identifies the entries (path, mode, stage, flags, object
	// id) whatever their stat data.
	content string
	// tree is the index's cache tree root ("" when invalid): the tree
	// the index holds.
	tree string
}

// maxTrackedScan is the most entries the scan keeps as maybe changed;
// past it the caller lets git pass over the whole tree.
const maxTrackedScan = 4096

// scanTracked stats the tracked files of the work tree at top whose index
// file is index: all of them when only is nil, else only the entries
// whose path is in only. false when the index cannot be read here (split,
// sparse, changed while read) or more than maxTrackedScan entries may
// have changed.
//
// The parse also gives the index's digest, which it records in digests
// (when not nil) for the other readers of this version of the file.
func scanTracked(top, index string, only map[string]bool, digests *indexDigests) (trackedScan, bool) {
	f, err := os.Open(index)
	if err != nil {
		return trackedScan{}, false
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return trackedScan{}, false
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return trackedScan{}, false
	}
	if after, err := os.Stat(index); err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		return trackedScan{}, false
	}
	written := before.ModTime()
	var entries []indexEntry
	if only == nil && len(data) >= 12 {
		entries = make([]indexEntry, 0, min(binary.BigEndian.Uint32(data[8:12]), 1<<20))
	}
	var scan trackedScan
	buf := make([]byte, 0, 64<<10)
	var hashLen int
	parsed := false
	g := newIndexDigester(len(data))
	for _, hashLen = range []int{20, 32} {
		if parseIndex(data, hashLen, nil) {
			parsed = parseIndexNames(data, hashLen, func(e *indexEntry) {
				buf = binary.BigEndian.AppendUint32(buf, e.mode)
				flags := byte(e.stage)
				if e.assumeValid {
					flags |= 4
				}
				if e.skipWorktree {
					flags |= 8
				}
				if e.intentToAdd {
					flags |= 16
				}
				buf = append(buf, flags)
				buf = append(buf, e.oid...)
				buf = append(buf, e.name...)
				buf = append(buf, 0)
				g.add(e)
				if only == nil || only[string(e.name)] {
					c := *e
					c.oid, c.name, c.path = nil, nil, string(e.name)
					entries = append(entries, c)
				}
			}, func(sig string, body []byte) {
				if sig == "TREE" {
					scan.tree = cacheTreeRoot(body, hashLen)
				}
			})
			break
		}
	}
	if !parsed {
		return trackedScan{}, false
	}
	digests.put(contentKey(data), g.digest())
	scan.content = fmt.Sprintf("%d %016x %016x", len(buf), maphash.Bytes(indexSeeds[0], buf), maphash.Bytes(indexSeeds[1], buf))
	maybe, blind, links := statEntries(top, entries, written)
	if len(maybe) > maxTrackedScan {
		return trackedScan{}, false
	}
	scan.maybe, scan.blind, scan.links = maybe, blind, links
	return scan, true
}

// cacheTreeRoot is the object id of the root of a cache tree extension
// ("" when the root is invalid or the extension cannot be read).
func cacheTreeRoot(body []byte, hashLen int) string {
	// "" NUL, then "<entries> <subtrees>\n", then the id when entries >= 0.
	if len(body) == 0 || body[0] != 0 {
		return ""
	}
	nl := strings.IndexByte(string(body[1:min(len(body), 64)]), '\n')
	if nl < 0 {
		return ""
	}
	count, _, ok := strings.Cut(string(body[1:1+nl]), " ")
	if n, err := strconv.Atoi(count); !ok || err != nil || n < 0 {
		return ""
	}
	start := 1 + nl + 1
	if len(body) < start+hashLen {
		return ""
	}
	return hex.EncodeToString(body[start : start+hashLen])
}

// statEntries stats the files of entries under top, in parallel when they
// are many, and returns the paths git must look at (trackedScan.maybe)
// and whether a regular file has several names. written is when the index
// was written.
func statEntries(top string, entries []indexEntry, written time.Time) (maybe, blind []string, links bool) {
	workers := 1
	if len(entries) >= 2048 {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	per := (len(entries) + workers - 1) / workers
	results := make([][]string, workers)
	blinds := make([][]string, workers)
	linked := make([]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*per, min((w+1)*per, len(entries))
		if lo >= hi {
			continue
		}
		wg.Go(func() {
			var st unix.Stat_t
			for i := lo; i < hi; i++ {
				e := &entries[i]
				err := unix.Lstat(filepath.Join(top, filepath.FromSlash(e.path)), &st)
				if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink > 1 {
					linked[w] = true
				}
				if err != nil || !statMatches(e, &st, written) {
					results[w] = append(results[w], e.path)
					if err == nil && gitTrusts(e, &st, written) {
						blinds[w] = append(blinds[w], e.path)
					}
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		maybe = append(maybe, results[w]...)
		blind = append(blind, blinds[w]...)
		links = links || linked[w]
	}
	return maybe, blind, links
}

// gitTrusts reports whether git takes the entry e for unchanged from the
// stat data st as it compares it (ie_match_stat without USE_NSEC): the
// seconds of both times, the inode, size, owner and mode bits, and an
// entry not racily clean by the index's second.
func gitTrusts(e *indexEntry, st *unix.Stat_t, written time.Time) bool {
	if !modeMatches(e, st) {
		return false
	}
	csec, _ := st.Ctim.Unix()
	msec, _ := st.Mtim.Unix()
	return uint32(csec) == e.ctimeSec && uint32(msec) == e.mtimeSec && uint32(st.Ino) == e.ino &&
		st.Uid == e.uid && st.Gid == e.gid && uint32(st.Size) == e.size && int64(e.mtimeSec) < written.Unix()
}

// statMatches reports whether git takes the entry e for unchanged without
// reading its file, whose stat data is st: the entry is a plain file,
// executable or symbolic link at stage 0 with no flag, st is exactly what
// the index recorded, and the file was written before the index (not
// racily clean).
func statMatches(e *indexEntry, st *unix.Stat_t, written time.Time) bool {
	if !modeMatches(e, st) {
		return false
	}
	if uint32(st.Ctim.Sec) != e.ctimeSec || uint32(st.Ctim.Nsec) != e.ctimeNsec ||
		uint32(st.Mtim.Sec) != e.mtimeSec || uint32(st.Mtim.Nsec) != e.mtimeNsec ||
		uint32(st.Ino) != e.ino || uint32(st.Dev) != e.dev || st.Uid != e.uid || st.Gid != e.gid || uint32(st.Size) != e.size {
		return false
	}
	return time.Unix(int64(e.mtimeSec), int64(e.mtimeNsec)).Before(written)
}

// modeMatches reports whether e is a plain file, executable or symbolic
// link at stage 0 with no flag, and st of the same kind.
func modeMatches(e *indexEntry, st *unix.Stat_t) bool {
	if e.stage != 0 || e.assumeValid || e.skipWorktree || e.intentToAdd {
		return false
	}
	switch e.mode {
	case 0o100644:
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o100 != 0 {
			return false
		}
	case 0o100755:
		if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o100 == 0 {
			return false
		}
	case 0o120000:
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return false
		}
	default:
		return false // a gitlink, or what git itself must judge
	}
	return true
}

// blindChanged are the paths among blind (trackedScan.blind) whose
// content differs from what the index holds: git's own stat check would
// take them for unchanged, so their content decides. A symbolic link, or
// a name hash-object cannot be given on a line, counts as changed.
func (w *Workflow) blindChanged(ctx context.Context, blind []string) ([]string, error) {
	if len(blind) == 0 {
		return nil, nil
	}
	args := []string{"ls-files", "-s", "-z", "--"}
	var hashed []string
	for _, p := range blind {
		args = append(args, ":(literal,top)"+p)
	}
	listed, err := w.run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("index entries in %s: %w", w.Worktree, err)
	}
	indexed := map[string]string{}
	for _, e := range nulList(listed) {
		meta, p, ok := strings.Cut(e, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 && f[0] != "120000" {
			indexed[p] = f[1]
		}
	}
	var changed []string
	for _, p := range blind {
		if indexed[p] == "" || strings.ContainsAny(p, "\n\r") {
			changed = append(changed, p)
		} else {
			hashed = append(hashed, p)
		}
	}
	if len(hashed) == 0 {
		return changed, nil
	}
	var in strings.Builder
	for _, p := range hashed {
		in.WriteString(stdinPath(p)) // a name starting with a quote is read C-quoted
		in.WriteByte('\n')
	}
	out, err := w.run(ctx, strings.NewReader(in.String()), "hash-object", "--stdin-paths")
	if err != nil {
		return nil, fmt.Errorf("hashing %d files in %s: %w", len(hashed), w.Worktree, err)
	}
	sums := strings.Fields(string(out))
	for i, p := range hashed {
		if i >= len(sums) || sums[i] != indexed[p] {
			changed = append(changed, p)
		}
	}
	return changed, nil
}
