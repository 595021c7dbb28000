package index

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"github.com/autarch-dev/autarch/workspace"
)

// formatVersion changes whenever the saved layout or the analysis changes;
// an index saved with another version is rebuilt.
const formatVersion = 5

// header starts the meta section of index.bin (segment.go); the files
// follow it in the same gob stream.
type header struct {
	Version int
	Root    string
	SumLen  [numFields]float64
	Live    int
	Files   int
	Chunks  int
	Terms   int
	// Embedder is the name/dim of the vectors' embedder; the vectors are dim
	// int8s per chunk, times the chunk's scale (0: no vector).
	Embedder string
	// BuiltAt is when the last Build started (Unix ns): a file modified
	// since then, within the clock's tick, may have changed unseen, so its
	// stamp is not trusted on the next load.
	BuiltAt int64
}

// ErrStale means the saved index is missing, corrupt or of another version.
var ErrStale = errors.New("no usable saved index")

// errNotIndexed is ErrStale for a project never indexed.
var errNotIndexed = fmt.Errorf("%w: not indexed yet", ErrStale)

// savedHistory is the recorded history as saved.
type savedHistory struct {
	// Layout is histLayout; an index saved with another (0: each file's
	// messages, before the commits were kept) reads the history again.
	Layout  int
	Head    string
	Commits []histCommit
}

// histLayout is the layout of savedHistory.
const histLayout = 1

// legacyFile is the whole-gob index of format 4 and before.
const legacyFile = "index.gob"

// Save writes the index atomically to dir/index.bin, dropping the chunks
// of removed and replaced files; it writes nothing when nothing changed
// since the index was loaded or last saved.
func (ix *Index) Save(dir string) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.dirty.Swap(false) {
		if _, err := os.Stat(filepath.Join(dir, indexFile)); err == nil {
			return nil
		}
	}
	if err := ix.save(dir); err != nil {
		ix.dirty.Store(true)
		return fmt.Errorf("saving index: %w", err)
	}
	os.Remove(filepath.Join(dir, legacyFile))
	return nil
}

func (ix *Index) save(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "index-*.tmp")
	if err != nil {
		return err
	}
	err = ix.write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, indexFile))
}

// write writes the live files and chunks, renumbered in order.
func (ix *Index) write(f *os.File) error {
	const dead = ^uint32(0)
	remap := make([]uint32, len(ix.chunks))
	files := make([]*fileInfo, 0, len(ix.files))
	order := make([]uint32, 0, ix.live) // old ids of the kept chunks, in new order
	for i := range remap {
		remap[i] = dead
	}
	for _, fi := range ix.byID {
		if fi == nil || ix.files[fi.Path] != fi {
			continue
		}
		nf := *fi
		nf.Chunks = make([]uint32, len(fi.Chunks))
		for i, c := range fi.Chunks {
			remap[c] = uint32(len(order))
			nf.Chunks[i] = uint32(len(order))
			order = append(order, c)
		}
		files = append(files, &nf)
	}
	terms := ix.lex.mergedTerms()
	sw, err := newSegmentWriter(f)
	if err != nil {
		return err
	}
	if err := sw.begin(secMeta); err != nil {
		return err
	}
	enc := gob.NewEncoder(sw)
	h := header{Version: formatVersion, Root: ix.root.Dir(), SumLen: ix.sumLen, Live: len(order),
		Files: len(files), Chunks: len(order), Terms: len(terms), Embedder: embedderKey(ix.emb), BuiltAt: ix.builtAt}
	if err := enc.Encode(&h); err != nil {
		return err
	}
	if err := enc.Encode(files); err != nil {
		return err
	}
	if err := enc.Encode(ix.skipped); err != nil {
		return err
	}
	if err := enc.Encode(savedHistory{Layout: histLayout, Head: ix.histHead, Commits: ix.commits}); err != nil {
		return err
	}
	if err := sw.begin(secChunks); err != nil {
		return err
	}
	buf := make([]chunkInfo, 0, 4096)
	fileOf := make(map[uint32]uint32, len(files)) // old file id -> new
	for newID, fi := range files {
		if len(fi.Chunks) > 0 {
			fileOf[ix.chunks[order[fi.Chunks[0]]].File] = uint32(newID)
		}
	}
	for _, old := range order {
		c := ix.chunks[old]
		c.File = fileOf[c.File]
		buf = append(buf, c)
		if len(buf) == cap(buf) {
			if _, err := sw.Write(raw(buf)); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := sw.Write(raw(buf)); err != nil {
		return err
	}
	if err := ix.writeLexicon(sw, terms, func(c uint32) (uint32, bool) {
		if int(c) >= len(remap) || remap[c] == dead {
			return 0, false
		}
		return remap[c], true
	}); err != nil {
		return err
	}
	if err := sw.begin(secVecs); err != nil {
		return err
	}
	for _, old := range order {
		if _, err := sw.Write(int8Bytes(ix.vecs.at(old))); err != nil {
			return err
		}
	}
	if err := sw.begin(secScales); err != nil {
		return err
	}
	scales := make([]float32, len(order))
	for i, old := range order {
		scales[i] = ix.vscale[old]
	}
	if _, err := sw.Write(raw(scales)); err != nil {
		return err
	}
	return sw.finish()
}

// Load maps a saved index for ix's root; ErrStale (wrapped) when there is
// none usable, so the caller rebuilds. Only the file list is read now;
// the lexicon, chunks and vectors are read from the mapping as searches
// need them.
func (ix *Index) Load(dir string) error {
	path := filepath.Join(dir, indexFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Join(dir, legacyFile)); err == nil {
			return fmt.Errorf("%w: saved in an older format", ErrStale)
		}
		return errNotIndexed
	}
	m, err := mapIndex(path)
	if err != nil {
		return fmt.Errorf("%w: corrupt (%v)", ErrStale, err)
	}
	dec := gob.NewDecoder(bytes.NewReader(m.meta))
	var h header
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("%w: corrupt (%v)", ErrStale, err)
	}
	if h.Version != formatVersion {
		return fmt.Errorf("%w: saved with format %d, this version uses %d", ErrStale, h.Version, formatVersion)
	}
	if h.Root != ix.root.Dir() {
		return fmt.Errorf("%w: saved for %s", ErrStale, h.Root)
	}
	var files []*fileInfo
	if err := dec.Decode(&files); err != nil || len(files) != h.Files || len(m.chunks) != h.Chunks {
		return fmt.Errorf("%w: corrupt file list (%v)", ErrStale, err)
	}
	skipped := map[string]stamp{}
	if err := dec.Decode(&skipped); err != nil {
		return fmt.Errorf("%w: corrupt list of skipped files (%v)", ErrStale, err)
	}
	var hist savedHistory
	if err := dec.Decode(&hist); err != nil {
		return fmt.Errorf("%w: corrupt history (%v)", ErrStale, err)
	}
	for _, f := range files {
		for _, c := range f.Chunks {
			if int(c) >= len(m.chunks) {
				return fmt.Errorf("%w: corrupt: chunk %d of %s out of range", ErrStale, c, f.Path)
			}
		}
	}
	for i := range m.chunks {
		if int(m.chunks[i].File) >= len(files) {
			return fmt.Errorf("%w: corrupt: chunk %d of no file", ErrStale, i)
		}
	}
	for i, e := range m.dict.entries {
		if uint64(e.Off)+uint64(e.Len) > uint64(len(m.dict.bytes)) || uint64(e.Post)+uint64(e.Size) > uint64(len(m.dict.postList)) {
			return fmt.Errorf("%w: corrupt: term %d out of range", ErrStale, i)
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	sameEmbedder := h.Embedder == embedderKey(ix.emb) && len(m.vecs) == len(m.chunks)*ix.dim && len(m.scales) == len(m.chunks)
	vecs, scales := m.vecs, m.scales
	if !sameEmbedder {
		// Another embedder's vectors are never mixed with this one's: the
		// files are re-read and re-embedded by the next Build.
		for _, f := range files {
			f.Hash, f.Stamp = [16]byte{}, stamp{}
		}
		clear(skipped)
		vecs, scales = nil, make([]float32, len(m.chunks))
	}
	ix.byID, ix.chunks, ix.sumLen, ix.live = files, m.chunks, h.SumLen, h.Live
	ix.lex = lexicon{base: m.dict, Terms: map[string]uint32{}}
	ix.vecs, ix.vscale, ix.builtAt, ix.skipped = newVecStore(ix.dim, len(m.chunks), vecs), scales, h.BuiltAt, skipped
	if hist.Layout != histLayout {
		hist = savedHistory{} // read again from the start by the next refresh
	}
	ix.commits, ix.histHead, ix.histTerms = hist.Commits, hist.Head, nil
	ix.files = make(map[string]*fileInfo, len(files))
	for _, f := range files {
		ix.files[f.Path] = f
	}
	ix.dirty.Store(!sameEmbedder)
	return nil
}

// Open loads the saved index of root from its state dir, or builds it
// (reporting why) and saves it. Unchanged files are not re-read after a load:
// Build skips them by content hash.
func Open(ctx context.Context, ix *Index, dir string, progress Progress, note func(string)) error {
	if err := ix.Load(dir); err != nil {
		if !errors.Is(err, ErrStale) {
			return err
		}
		if note != nil && err != errNotIndexed {
			note(err.Error() + "; rebuilding")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		ix.mu.Lock()
		ix.spillDir = dir
		ix.mu.Unlock()
	}
	if err := ix.Build(ctx, progress); err != nil {
		return err
	}
	if err := ix.refreshHistory(ctx); err != nil && note != nil && ctx.Err() == nil {
		note(err.Error() + "; searching without it") // the index works without history
	}
	return ix.Save(dir) // writes only what changed: nothing when nothing did
}

// int8Bytes views int8s as bytes (gob encodes a []byte as one block).
func int8Bytes(v []int8) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v))
}

func bytesInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// Location is where the index of root is kept: in the git directory of
// root's repository when root's .git is verifiably one, else in the user
// cache directory (os.UserCacheDir()/autarch/index/<name>-<hash of root>),
// never inside a folder that is not the user's project.
//
// A .git directory must look like a git directory (HEAD, objects, refs). A
// .git file ("gitdir: <path>") is trusted only when git itself would have
// written it: the git directory it names points back at this work tree,
// either as a linked worktree (its gitdir file names root/.git) or as a
// submodule (its core.worktree is root). Anyone can write a .git file
// naming any directory ("gitdir: /home/user/.ssh"); following it unchecked
// would write the index there. Nothing here runs git: the checks read a few
// small files, opened without following a final symlink or blocking.
func Location(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("index location of %s: %w", root, err)
	}
	if gitdir, ok := verifiedGitDir(abs); ok {
		return filepath.Join(gitdir, "autarch", "index"), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no state directory for %s: %w", abs, err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "autarch", "index", fmt.Sprintf("%s-%x", filepath.Base(abs), sum[:6])), nil
}

// verifiedGitDir returns the git directory of the work tree at top, when
// top/.git is a git directory or a .git file that git wrote.
func verifiedGitDir(top string) (string, bool) {
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return "", false
	}
	dotgit := filepath.Join(realTop, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		return dotgit, isGitDir(dotgit)
	case !fi.Mode().IsRegular():
		return "", false // a symlink, FIFO or device named .git
	}
	gitdir, _, err := workspace.ReadGitFile(realTop)
	if err != nil {
		return "", false
	}
	if gitdir, err = filepath.EvalSymlinks(gitdir); err != nil || !isGitDir(gitdir) {
		return "", false
	}
	if samePath(pathIn(gitdir, "gitdir"), dotgit) || samePath(coreWorktree(gitdir), realTop) {
		return gitdir, true
	}
	return "", false
}

// isGitDir reports whether dir looks like a git directory: a HEAD file,
// and objects and refs directories in it or in its common directory.
func isGitDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	common := dir
	if c := pathIn(dir, "commondir"); c != "" {
		common = c
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(common, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// pathIn reads a path stored in the file name of a git directory (gitdir,
// commondir), relative paths being taken from dir; "" when there is none.
func pathIn(dir, name string) string {
	data, err := readSmall(filepath.Join(dir, name))
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(data))
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// coreWorktree is the core.worktree setting of a git directory's config,
// resolved from it; "" when unset.
func coreWorktree(gitdir string) string {
	data, err := readSmall(filepath.Join(gitdir, "config"))
	if err != nil {
		return ""
	}
	inCore := false
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inCore = strings.EqualFold(strings.Trim(line, "[] \t"), "core")
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !inCore || !ok || !strings.EqualFold(strings.TrimSpace(key), "worktree") {
			continue
		}
		p := strings.Trim(strings.TrimSpace(value), `"`)
		if p == "" {
			return ""
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(gitdir, p)
		}
		return p
	}
	return ""
}

// samePath reports whether p names the existing file or directory want
// (which is free of symlinks).
func samePath(p, want string) bool {
	if p == "" {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && real == want
}

// maxGitFile caps the git metadata files read by Location.
const maxGitFile = 64 << 10

// readSmall reads a small regular file without following a final symlink
// or blocking on a FIFO.
func readSmall(name string) ([]byte, error) { return workspace.ReadSmallFile(name, maxGitFile) }

// writeLexicon writes the postings, terms and term index sections of
// terms (sorted), each posting's chunk renumbered by chunk (false: drop it).
func (ix *Index) writeLexicon(sw *segmentWriter, terms []string, chunk func(uint32) (uint32, bool)) error {
	if err := sw.begin(secPostings); err != nil {
		return err
	}
	entries := make([]termEntry, 0, len(terms))
	var termBytes, enc8 []byte
	var off uint64
	var ps []posting
	for _, t := range terms {
		base, added := ix.lex.postings(t)
		ps = ps[:0]
		for _, p := range twoRuns(base, added) {
			if c, ok := chunk(p.Chunk); ok {
				p.Chunk = c
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue // only dead chunks had it
		}
		slices.SortFunc(ps, func(a, b posting) int { return cmp.Compare(a.Chunk, b.Chunk) })
		enc8 = encodePostings(enc8[:0], ps)
		if off+uint64(len(enc8)) > uint64(^uint32(0)) || uint64(len(termBytes)+len(t)) > uint64(^uint32(0)) {
			return errors.New("the index has grown past 4 GiB of postings")
		}
		if _, err := sw.Write(enc8); err != nil {
			return err
		}
		entries = append(entries, termEntry{Off: uint32(len(termBytes)), Len: uint32(len(t)), Post: uint32(off), Size: uint32(len(enc8)), N: uint32(len(ps))})
		off += uint64(len(enc8))
		termBytes = append(termBytes, t...)
	}
	if err := sw.begin(secTerms); err != nil {
		return err
	}
	if _, err := sw.Write(termBytes); err != nil {
		return err
	}
	if err := sw.begin(secTermIdx); err != nil {
		return err
	}
	if _, err := sw.Write(raw(entries)); err != nil {
		return err
	}
	return nil
}

// spillBytes is how many bytes of encoded postings a Build holds in memory
// before it writes them, with the base, to a new mapped base.
const spillBytes = 48 << 20

// spillLocked moves the added postings into a new mapped base (a file in
// ix.spillDir, unlinked once mapped), so that a big build holds a bounded
// lexicon in memory. ix.mu is held.
func (ix *Index) spillLocked() error {
	f, err := os.CreateTemp(ix.spillDir, "spill-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	sw, err := newSegmentWriter(f)
	if err != nil {
		return err
	}
	if err := ix.writeLexicon(sw, ix.lex.mergedTerms(), func(c uint32) (uint32, bool) { return c, true }); err != nil {
		return err
	}
	if err := sw.finish(); err != nil {
		return err
	}
	m, err := mapIndex(f.Name())
	if err != nil {
		return err
	}
	ix.lex = lexicon{base: m.dict, Terms: map[string]uint32{}}
	return nil
}
