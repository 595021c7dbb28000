// Package index is the semantic code index: walking, chunking, lexical
// retrieval (BM25F over path, symbol and body fields with identifier-aware
// tokens), pattern weights and incremental updates. It serves
// semantic_search.
package index

import (
	"bytes"
	"container/heap"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

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
}

// Index is the searchable index of one workspace root.
type Index struct {
	mu     sync.RWMutex
	root   *workspace.Root
	gate   *workspace.Gate
	files  map[string]*fileInfo
	byID   []*fileInfo
	chunks []chunkInfo
	lex    lexicon
	sumLen [3]float64
	live   int
	// progress of a running build
	done, total int
	building    bool
}

// New makes an empty index over root.
func New(root *workspace.Root) *Index {
	return &Index{root: root, gate: workspace.DefaultGate(), files: map[string]*fileInfo{}, lex: newLexicon()}
}

// Progress reports files done and total of a running build.
type Progress func(done, total int)

// doc is one analysed file, ready to be added.
type doc struct {
	rel    string
	hash   [16]byte
	prior  float32
	chunks []Chunk
	counts []fieldCounts
}

// Build indexes every file of the workspace that is not ignored, not
// sensitive, not binary and not larger than MaxFileSize, skipping files
// whose content hash is unchanged and dropping files that disappeared.
func (ix *Index) Build(ctx context.Context, progress Progress) error {
	ig := workspace.NewIgnore(ix.root)
	var paths []string
	err := ig.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if !d.IsDir() && d.Type().IsRegular() {
			if _, blocked := ix.gate.PathBlocked(rel); !blocked {
				paths = append(paths, rel)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ix.mu.Lock()
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
	ix.mu.Unlock()
	defer func() {
		ix.mu.Lock()
		ix.building = false
		ix.mu.Unlock()
	}()
	jobs := make(chan string, 256)
	docs := make(chan *doc, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for rel := range jobs {
				d, b := ix.analyse(rel, buf)
				buf = b
				docs <- d
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, p := range paths {
			select {
			case jobs <- p:
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
// or is unchanged.
func (ix *Index) analyse(rel string, buf []byte) (*doc, []byte) {
	data, err := ix.root.ReadWalked(rel, buf, MaxFileSize)
	if err != nil || data == nil {
		return nil, buf // vanished, unreadable or too big: skipped
	}
	buf = data
	if workspace.IsBinary(data) {
		return nil, buf
	}
	if _, blocked := ix.gate.ContentBlocked(data); blocked {
		return nil, buf // secrets never enter the index
	}
	h := sha256.Sum256(data)
	var hash [16]byte
	copy(hash[:], h[:16])
	ix.mu.RLock()
	old, ok := ix.files[rel]
	unchanged := ok && old.Hash == hash
	ix.mu.RUnlock()
	if unchanged {
		return nil, buf
	}
	return analyseContent(rel, data, hash), buf
}

func analyseContent(rel string, data []byte, hash [16]byte) *doc {
	d := &doc{rel: rel, hash: hash, prior: prior(rel, data), chunks: ChunkFile(rel, data)}
	lines := bytes.SplitAfter(data, []byte{'\n'})
	var pathToks []string
	pathTokens(rel, func(t string) { pathToks = append(pathToks, t) })
	for _, c := range d.chunks {
		fc := fieldCounts{}
		for _, t := range pathToks {
			fc.add(0, t)
		}
		Tokens(c.Symbols, func(t string) { fc.add(1, t) })
		for i := c.Start; i <= c.End && i-1 < len(lines); i++ {
			Tokens(string(lines[i-1]), func(t string) { fc.add(2, t) })
		}
		d.counts = append(d.counts, fc)
	}
	return d
}

// prior down-weights files a code search rarely wants first.
func prior(rel string, data []byte) float32 {
	switch {
	case strings.HasSuffix(rel, "_test.go"), strings.Contains("/"+rel, "/testdata/"), strings.Contains("/"+rel, "/vendor/"),
		strings.Contains("/"+rel, "/node_modules/"):
		return 0.5
	case bytes.Contains(data[:min(len(data), 1024)], []byte("Code generated")) && bytes.Contains(data[:min(len(data), 1024)], []byte("DO NOT EDIT")):
		return 0.5
	}
	return 1
}

// addLocked replaces a file's chunks with d's.
func (ix *Index) addLocked(d *doc) {
	ix.removeLocked(d.rel)
	f := &fileInfo{Path: d.rel, Hash: d.hash, Prior: d.prior}
	fileID := uint32(len(ix.byID))
	ix.byID = append(ix.byID, f)
	ix.files[d.rel] = f
	for i, c := range d.chunks {
		id := uint32(len(ix.chunks))
		ci := chunkInfo{File: fileID, Start: uint32(c.Start), End: uint32(c.End)}
		for term, n := range d.counts[i] {
			ix.lex.add(term, posting{Chunk: id, Path: n[0], Sym: n[1], Body: n[2]})
			ci.LenPath += uint32(n[0])
			ci.LenSym += uint32(n[1])
			ci.LenBody += uint32(n[2])
		}
		ix.chunks = append(ix.chunks, ci)
		f.Chunks = append(f.Chunks, id)
		ix.sumLen[0] += float64(ci.LenPath)
		ix.sumLen[1] += float64(ci.LenSym)
		ix.sumLen[2] += float64(ci.LenBody)
		ix.live++
	}
}

// removeLocked drops a file's chunks (tombstones; Compact reclaims them).
func (ix *Index) removeLocked(rel string) {
	f, ok := ix.files[rel]
	if !ok {
		return
	}
	for _, id := range f.Chunks {
		c := &ix.chunks[id]
		if !c.Dead {
			c.Dead = true
			ix.sumLen[0] -= float64(c.LenPath)
			ix.sumLen[1] -= float64(c.LenSym)
			ix.sumLen[2] -= float64(c.LenBody)
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
		d, _ := ix.analyse(clean, nil)
		if d == nil {
			if data, err := ix.root.ReadFile(clean); err == nil && (workspace.IsBinary(data) || len(data) > MaxFileSize) {
				ix.Remove(clean)
			} else if err == nil {
				if _, blocked := ix.gate.ContentBlocked(data); blocked {
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
	return Stats{Files: len(ix.files), Chunks: ix.live, Terms: len(ix.lex.Terms), Building: ix.building, Done: ix.done, Total: ix.total}
}

// Weight is a parsed pattern weight: files matching Glob get scores × Weight.
type Weight struct {
	Glob   string
	Weight float64
}

// Query is a search request.
type Query struct {
	Text    string
	Max     int
	Weights []Weight
}

// Hit is one result.
type Hit struct {
	Path          string
	Start, End    int
	Snippet       string
	Score         float64 // normalized to the best hit (0..1]
	AdjustedScore float64 // Score × the pattern weights that match
}

// Search ranks chunks for a query. Matching pattern weights multiply the
// score (0 excludes); results are sorted by adjusted score.
func (ix *Index) Search(q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("empty query")
	}
	if q.Max <= 0 {
		q.Max = 10
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	qterms := map[string]float64{}
	Tokens(q.Text, func(t string) { qterms[t]++ })
	s := &scorer{scores: make([]float32, len(ix.chunks))}
	for t, w := range qterms {
		ix.scoreTerm(s, t, w)
	}
	h := &hitHeap{}
	for _, id := range s.touched {
		c := ix.chunks[id]
		f := ix.byID[c.File]
		score := float64(s.scores[id]) * float64(f.Prior)
		weight := 1.0
		for _, w := range q.Weights {
			if ok, _ := doublestar.Match(w.Glob, f.Path); ok {
				weight *= w.Weight
			}
		}
		if weight == 0 || score <= 0 {
			continue
		}
		heap.Push(h, scored{id: id, score: score, adjusted: score * weight})
		if h.Len() > q.Max {
			heap.Pop(h)
		}
	}
	res := make([]scored, h.Len())
	for i := len(res) - 1; i >= 0; i-- {
		res[i] = heap.Pop(h).(scored)
	}
	top := 0.0
	for _, r := range res {
		top = math.Max(top, r.score)
	}
	hits := make([]Hit, 0, len(res))
	for _, r := range res {
		c := ix.chunks[r.id]
		f := ix.byID[c.File]
		hits = append(hits, Hit{Path: f.Path, Start: int(c.Start), End: int(c.End), Score: round(r.score / top), AdjustedScore: round(r.adjusted / top)})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].AdjustedScore > hits[j].AdjustedScore })
	return hits, nil
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

type scored struct {
	id              uint32
	score, adjusted float64
}

// hitHeap is a min-heap on adjusted score.
type hitHeap []scored

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].adjusted < h[j].adjusted }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Snippets fills the hits' snippets from disk (at most maxLines per hit),
// with secret lines blocked.
func (ix *Index) Snippets(hits []Hit, maxLines int) {
	cache := map[string][]string{}
	for i := range hits {
		lines, ok := cache[hits[i].Path]
		if !ok {
			data, err := ix.root.ReadFile(hits[i].Path)
			if err == nil {
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

// StateDir is where the index of root is kept: inside the repository's git
// directory when root is a git work tree, else in the user cache directory
// (never inside a folder that is not the user's project).
func StateDir(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	dotgit := filepath.Join(abs, ".git")
	if fi, err := os.Stat(dotgit); err == nil {
		if fi.IsDir() {
			return filepath.Join(dotgit, "autarch", "index"), nil
		}
		if data, err := os.ReadFile(dotgit); err == nil {
			if gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
				if !filepath.IsAbs(gitdir) {
					gitdir = filepath.Join(abs, gitdir)
				}
				return filepath.Join(gitdir, "autarch", "index"), nil
			}
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no state directory for %s: %w", abs, err)
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "autarch", "index", fmt.Sprintf("%s-%x", filepath.Base(abs), sum[:6])), nil
}

// AddContent indexes content under a path without reading the disk (for
// corpora that are not files, such as benchmark sets).
func (ix *Index) AddContent(rel string, data []byte) {
	h := sha256.Sum256(data)
	var hash [16]byte
	copy(hash[:], h[:16])
	d := analyseContent(rel, data, hash)
	ix.mu.Lock()
	ix.addLocked(d)
	ix.mu.Unlock()
}
