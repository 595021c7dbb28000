// Package index is the semantic code index: walking, chunking, lexical
// retrieval (BM25F over path, symbol, comment and body fields with
// identifier-aware tokens, mixed with a file-level BM25F), chunk vectors
// from a pluggable Embedder (a weight-free hashing embedder by default),
// fusion of the two rankings, pattern weights and incremental updates. It
// serves semantic_search.
//
// The vectors are stored here, int8-quantized beside the lexicon, rather than
// in chromem-go as DESIGN.md first planned: chromem-go keeps float32 vectors
// (4× the memory), persists one gob file per document (about 100k files for
// $(go env GOROOT)/src) and searches only by brute force (70–100 ms per query
// at 100k×768 on these machines, against a 30 ms p95 goal). The index
// searches exhaustively while chunks×dimensions stay small and otherwise lets
// the vectors re-rank the lexical candidates.
package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/autarch-dev/autarch/workspace"
)

// MaxFileSize is the largest file indexed.
const MaxFileSize = 2 << 20

// fileInfo is one indexed file.
type fileInfo struct {
	Path   string
	Hash   [16]byte
	Chunks []uint32
	// Prior scales the file's scores (tests, testdata, vendor, generated).
	Prior float32
	// Stamp is the file's metadata when it was read: a Build does not
	// re-read a file whose stamp is unchanged (and not racy).
	Stamp stamp
}

// stamp identifies a version of a file without reading it: writing the
// file changes its size, mtime or ctime; replacing it, its inode.
type stamp struct {
	Ino                uint64
	Size, MTime, CTime int64
}

// stampOf is fi's stamp (zero without system metadata: never trusted).
func stampOf(fi fs.FileInfo) stamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return stamp{}
	}
	return stamp{Ino: st.Ino, Size: st.Size, MTime: int64(st.Mtim.Sec)*1e9 + int64(st.Mtim.Nsec), CTime: int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec)}
}

// racyWindow is how close to a build's start a file's change may be for
// its stamp not to be trusted: the file system's clock ticks coarsely, so
// a file written just after it was read may keep the same times.
const racyWindow = time.Second

// Index is the searchable index of one workspace root.
type Index struct {
	mu    sync.RWMutex
	root  *workspace.Root
	gate  *workspace.Gate
	files map[string]*fileInfo
	byID  []*fileInfo
	// skipped are the files seen and not indexed, by their stamps.
	skipped map[string]stamp
	chunks  []chunkInfo
	lex     lexicon
	sumLen  [numFields]float64
	live    int
	// vectors: dim int8s per chunk (vecs) times a scale (vscale, 0 = none)
	emb     Embedder
	hashEmb *HashEmbedder    // the built-in embedder's hashed part (nil: external)
	trained *TrainedEmbedder // the built-in embedder's trained part, if any
	hashDim int              // the hashed part's length; the trained part follows
	dim     int
	vecs    vecStore
	vscale  []float32
	// progress of a running build
	done, total int
	building    bool
	// dirty says the index changed since it was loaded or saved.
	dirty atomic.Bool
	// builtAt is when the last Build started (Unix ns).
	builtAt int64
	// racy is racyWindow (tests shorten it); reads counts files read.
	racy  time.Duration
	reads atomic.Int64
	// history: the recorded commits, oldest first (history.go)
	commits    []histCommit
	histHead   string
	histMu     sync.Mutex
	histTerms  *histIndex
	histTune   histTune
	histSource HistorySource
	// spillDir takes a big build's postings (Open sets it to the state dir).
	spillDir string
	spillAt  int // spillBytes (tests lower it)
}

// New makes an empty index over root.
func New(root *workspace.Root) *Index {
	ix := &Index{root: root, gate: workspace.DefaultGate(), files: map[string]*fileInfo{}, skipped: map[string]stamp{}, lex: newLexicon(), racy: racyWindow, spillAt: spillBytes,
		histTune: defaultHistTune()}
	ix.SetEmbedder(nil)
	return ix
}

// SetEmbedder chooses the embedder (nil: DefaultEmbedder); set it before
// building or loading. Vectors of another embedder are dropped.
func (ix *Index) SetEmbedder(e Embedder) {
	switch b := e.(type) {
	case nil:
		e = DefaultEmbedder()
	case *HashEmbedder:
		e = &BuiltinEmbedder{Hash: b}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.emb != nil && embedderKey(ix.emb) == embedderKey(e) {
		return
	}
	ix.emb, ix.dim = e, e.Dim()
	ix.hashEmb, ix.trained, ix.hashDim = nil, nil, ix.dim
	if b, ok := e.(*BuiltinEmbedder); ok {
		ix.hashEmb, ix.trained, ix.hashDim = b.Hash, b.Trained, b.Hash.Dim()
	}
	ix.vecs = newVecStore(ix.dim, len(ix.chunks), nil)
	ix.vscale = make([]float32, len(ix.chunks))
	for _, f := range ix.files {
		f.Hash, f.Stamp = [16]byte{}, stamp{} // the next Build re-reads and re-embeds every file
	}
	ix.dirty.Store(true)
}

// Progress reports files done and total of a running build.
type Progress func(done, total int)

// doc is one analysed file, ready to be added.
type doc struct {
	rel    string
	hash   [16]byte
	prior  float32
	stamp  stamp
	chunks []Chunk
	terms  [][]termCount
	// vectors of the chunks (quantized), when embedded
	vecs  []int8
	scale []float32
}

// Build indexes every file of the workspace that is not ignored, not
// sensitive, not binary and not larger than MaxFileSize, skipping files
// whose content hash is unchanged and dropping files that disappeared.
func (ix *Index) Build(ctx context.Context, progress Progress) error {
	started := time.Now().UnixNano()
	ig := workspace.NewIgnore(ix.root)
	var paths []string
	var stamps []stamp
	err := ig.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && d.Type().IsRegular() {
			if _, blocked := ix.gate.PathBlocked(rel); !blocked {
				var st stamp
				if fi, err := d.Info(); err == nil {
					st = stampOf(fi)
				}
				paths = append(paths, rel)
				stamps = append(stamps, st)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ix.mu.Lock()
	trustBefore := ix.builtAt - int64(ix.racy)
	ix.builtAt = started
	ix.building, ix.done, ix.total = true, 0, len(paths)
	seen := map[string]bool{}
	for _, p := range paths {
		seen[p] = true
	}
	for p := range ix.files {
		if !seen[p] {
			ix.removeLocked(p)
		}
	}
	for p := range ix.skipped {
		if !seen[p] {
			delete(ix.skipped, p)
			ix.dirty.Store(true)
		}
	}
	ix.mu.Unlock()
	defer func() {
		ix.mu.Lock()
		ix.building = false
		ix.mu.Unlock()
	}()
	jobs := make(chan int, 256)
	docs := make(chan *doc, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			a := newAnalyzer()
			for i := range jobs {
				d, b := ix.analyse(ctx, a, paths[i], stamps[i], trustBefore, buf)
				buf = b
				docs <- d
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range paths {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(docs) }()
	n := 0
	batch := make([]*doc, 0, 64)
	flush := func() {
		ix.mu.Lock()
		for _, d := range batch {
			if d != nil {
				ix.addLocked(d)
			}
		}
		ix.done = n
		if ix.spillDir != "" && ix.lex.bytes > ix.spillAt {
			if err := ix.spillLocked(); err != nil {
				ix.spillDir = "" // keep building in memory
			}
		}
		ix.mu.Unlock()
		batch = batch[:0]
		if progress != nil {
			progress(n, len(paths))
		}
	}
	for d := range docs {
		n++
		batch = append(batch, d)
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	return ctx.Err()
}

// analyse reads and tokenizes one file; nil when it must not be indexed
// or is unchanged. A file whose stamp st is the one it was indexed with,
// and older than trustBefore (Unix ns), is not read at all.
func (ix *Index) analyse(ctx context.Context, a *analyzer, rel string, st stamp, trustBefore int64, buf []byte) (*doc, []byte) {
	if st != (stamp{}) && st.MTime < trustBefore && st.CTime < trustBefore {
		ix.mu.RLock()
		old, ok := ix.files[rel]
		same := ok && old.Stamp == st || !ok && ix.skipped[rel] == st
		ix.mu.RUnlock()
		if same {
			return nil, buf
		}
	}
	ix.reads.Add(1)
	data, err := ix.root.ReadWalked(rel, buf, MaxFileSize)
	if err != nil || data == nil {
		ix.skip(rel, st) // vanished, unreadable or too big
		return nil, buf
	}
	buf = data
	if workspace.IsBinary(data) {
		ix.skip(rel, st)
		return nil, buf
	}
	if _, blocked := ix.gate.FileBlocked(rel, data); blocked {
		ix.skip(rel, st) // secrets never enter the index
		return nil, buf
	}
	h := sha256.Sum256(data)
	var hash [16]byte
	copy(hash[:], h[:16])
	ix.mu.RLock()
	old, ok := ix.files[rel]
	unchanged := ok && old.Hash == hash
	restamp := unchanged && old.Stamp != st
	ix.mu.RUnlock()
	if restamp { // touched, not changed: remember the new stamp
		ix.mu.Lock()
		if ix.files[rel] == old {
			old.Stamp = st
			ix.dirty.Store(true)
		}
		ix.mu.Unlock()
	}
	if unchanged {
		return nil, buf
	}
	d := a.analyse(rel, data, hash)
	d.stamp = st
	ix.embedDoc(ctx, d, data)
	return d, buf
}

// skip records that the file at rel, as stamped, is not indexed (binary,
// too big, blocked by the gate), dropping what was indexed of it, so that
// the next Build does not read it again until it changes.
func (ix *Index) skip(rel string, st stamp) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if _, ok := ix.files[rel]; ok {
		ix.removeLocked(rel)
	}
	if old, ok := ix.skipped[rel]; !ok || old != st {
		ix.skipped[rel] = st
		ix.dirty.Store(true)
	}
}

// prior down-weights files a code search rarely wants first.
func prior(rel string, data []byte) float32 {
	switch {
	case strings.HasSuffix(rel, "_test.go"), strings.Contains("/"+rel, "/testdata/"), strings.Contains("/"+rel, "/vendor/"),
		strings.Contains("/"+rel, "/node_modules/"):
		return 0.5
	case bytes.Contains(data[:min(len(data), 1024)], []byte("Code generated")) && bytes.Contains(data[:min(len(data), 1024)], []byte("DO NOT EDIT")):
		return 0.5
	case !sourceExt[strings.ToLower(path.Ext(rel))]:
		return nonSourcePrior
	}
	return 1
}

// nonSourcePrior scales files that are not source code (documentation,
// data, configuration): a code search wants code first.
const nonSourcePrior = 0.6

// sourceExt lists the extensions of source code.
var sourceExt = wordSet(".go .c .h .cc .cpp .hpp .cxx .hh .m .mm .s .asm .py .pyi .js .jsx .mjs .cjs .ts .tsx .java .kt .kts .scala .rs .rb .php .cs .fs .swift .dart .lua .pl .pm .r .jl .sh .bash .zsh .ps1 .sql .ex .exs .erl .hs .ml .mli .clj .el .vim .zig .nim .v .sv .vhd .proto .thrift .graphql .vue .svelte")

// wordSet is the set of the space-separated words.
func wordSet(words string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(words) {
		set[w] = true
	}
	return set
}

// addLocked replaces a file's chunks with d's.
func (ix *Index) addLocked(d *doc) {
	ix.removeLocked(d.rel)
	f := &fileInfo{Path: d.rel, Hash: d.hash, Prior: d.prior, Stamp: d.stamp}
	ix.dirty.Store(true)
	fileID := uint32(len(ix.byID))
	ix.byID = append(ix.byID, f)
	ix.files[d.rel] = f
	for i, c := range d.chunks {
		id := uint32(len(ix.chunks))
		ci := chunkInfo{File: fileID, Start: uint32(c.Start), End: uint32(c.End)}
		for _, tc := range d.terms[i] {
			ix.lex.add(tc.Term, posting{Chunk: id, N: tc.N})
			for f := range numFields {
				ci.Len[f] += uint32(tc.N[f])
			}
		}
		ix.chunks = append(ix.chunks, ci)
		f.Chunks = append(f.Chunks, id)
		for f := range numFields {
			ix.sumLen[f] += float64(ci.Len[f])
		}
		ix.live++
		if d.scale != nil {
			ix.vecs.append(d.vecs[i*ix.dim : (i+1)*ix.dim])
			ix.vscale = append(ix.vscale, d.scale[i])
		} else {
			ix.vecs.append(nil)
			ix.vscale = append(ix.vscale, 0)
		}
	}
}

// removeLocked drops a file's chunks (tombstones; Compact reclaims them).
func (ix *Index) removeLocked(rel string) {
	f, ok := ix.files[rel]
	if !ok {
		return
	}
	ix.dirty.Store(true)
	for _, id := range f.Chunks {
		c := &ix.chunks[id]
		if !c.Dead {
			c.Dead = true
			for f := range numFields {
				ix.sumLen[f] -= float64(c.Len[f])
			}
			ix.live--
		}
	}
	delete(ix.files, rel)
}

// Update re-indexes the given files (relative paths) now: changed ones are
// replaced, deleted ones removed, unchanged ones left alone.
func (ix *Index) Update(ctx context.Context, rels ...string) error {
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			return err
		}
		clean, err := ix.root.Clean(rel)
		if err != nil {
			return err
		}
		fi, err := ix.root.Lstat(clean)
		if err != nil || !fi.Mode().IsRegular() {
			ix.Remove(clean)
			continue
		}
		if _, blocked := ix.gate.PathBlocked(clean); blocked || workspace.NewIgnore(ix.root).Match(clean, false) {
			ix.Remove(clean)
			continue
		}
		d, _ := ix.analyse(ctx, newAnalyzer(), clean, stampOf(fi), 0, nil)
		if d == nil {
			if data, err := ix.root.ReadFile(clean); err == nil && (workspace.IsBinary(data) || len(data) > MaxFileSize) {
				ix.Remove(clean)
			} else if err == nil {
				if _, blocked := ix.gate.FileBlocked(clean, data); blocked {
					ix.Remove(clean)
				}
			}
			continue
		}
		ix.mu.Lock()
		ix.addLocked(d)
		ix.mu.Unlock()
	}
	return nil
}

// Remove drops a file from the index.
func (ix *Index) Remove(rel string) {
	ix.mu.Lock()
	ix.removeLocked(rel)
	ix.mu.Unlock()
}

// Stats describe the index.
type Stats struct {
	Files, Chunks, Terms int
	Building             bool
	Done, Total          int
}

// Stats reports the index's size and build progress.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return Stats{Files: len(ix.files), Chunks: ix.live, Terms: ix.lex.size(), Building: ix.building, Done: ix.done, Total: ix.total}
}

// Snippets fills the hits' snippets from disk (at most maxLines per hit),
// with secret lines blocked; a file the gate blocks now (ReadShown: it
// may have changed since it was indexed, or be another name of a blocked
// file) gives no snippet at all.
func (ix *Index) Snippets(hits []Hit, maxLines int) {
	cache := map[string][]string{}
	for i := range hits {
		lines, ok := cache[hits[i].Path]
		if !ok {
			if data, _, err := ix.gate.ReadShown(ix.root, hits[i].Path, workspace.MaxReadSize); err == nil {
				lines = strings.Split(string(data), "\n")
			}
			cache[hits[i].Path] = lines
		}
		end := min(hits[i].End, hits[i].Start+maxLines-1, len(lines))
		if hits[i].Start-1 >= end {
			continue
		}
		snippet := strings.Join(lines[hits[i].Start-1:end], "\n")
		hits[i].Snippet = ix.gate.RedactLines(snippet)
	}
}

// AddContent indexes content under a path without reading the disk (for
// corpora that are not files, such as benchmark sets, and edited buffers).
// Content the gate blocks (FileBlocked) is not indexed, and drops any
// earlier version of the path.
func (ix *Index) AddContent(ctx context.Context, rel string, data []byte) {
	if _, blocked := ix.gate.FileBlocked(rel, data); blocked {
		ix.Remove(rel)
		return
	}
	h := sha256.Sum256(data)
	var hash [16]byte
	copy(hash[:], h[:16])
	d := newAnalyzer().analyse(rel, data, hash)
	ix.embedDoc(ctx, d, data)
	ix.mu.Lock()
	ix.addLocked(d)
	ix.mu.Unlock()
}
