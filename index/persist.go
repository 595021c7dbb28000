package index

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/autarch-dev/autarch/workspace"
)

// formatVersion changes whenever the saved layout or the analysis changes;
// an index saved with another version is rebuilt.
const formatVersion = 4

// header starts the on-disk form of an index; the files, chunks, lexicon
// and vectors follow in parts of at most savePart elements, so that neither
// saving nor loading holds a second copy of the index in memory.
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
}

// lexPart is a run of the lexicon's terms with their postings.
type lexPart struct {
	Terms    []string
	Postings [][]posting
}

const savePart = 1 << 16

// ErrStale means the saved index is missing, corrupt or of another version.
var ErrStale = errors.New("no usable saved index")

// errNotIndexed is ErrStale for a project never indexed.
var errNotIndexed = fmt.Errorf("%w: not indexed yet", ErrStale)

// Save writes the index atomically to dir/index.gob.
func (ix *Index) Save(dir string) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "index-*.tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = ix.encode(gob.NewEncoder(w))
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving index: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, "index.gob"))
}

func (ix *Index) encode(enc *gob.Encoder) error {
	terms := make([]string, len(ix.lex.Postings))
	for t, id := range ix.lex.Terms {
		terms[id] = t
	}
	h := header{Version: formatVersion, Root: ix.root.Dir(), SumLen: ix.sumLen, Live: ix.live,
		Files: len(ix.byID), Chunks: len(ix.chunks), Terms: len(terms), Embedder: embedderKey(ix.emb)}
	if err := enc.Encode(&h); err != nil {
		return err
	}
	for i := 0; i < len(ix.byID); i += savePart {
		if err := enc.Encode(ix.byID[i:min(i+savePart, len(ix.byID))]); err != nil {
			return err
		}
	}
	for i := 0; i < len(ix.chunks); i += savePart {
		if err := enc.Encode(ix.chunks[i:min(i+savePart, len(ix.chunks))]); err != nil {
			return err
		}
	}
	for i := 0; i < len(terms); i += savePart {
		j := min(i+savePart, len(terms))
		if err := enc.Encode(lexPart{Terms: terms[i:j], Postings: ix.lex.Postings[i:j]}); err != nil {
			return err
		}
	}
	for i := 0; i < len(ix.chunks); i += savePart {
		j := min(i+savePart, len(ix.chunks))
		if err := enc.Encode(int8Bytes(ix.vecs[i*ix.dim : j*ix.dim])); err != nil {
			return err
		}
		if err := enc.Encode(ix.vscale[i:j]); err != nil {
			return err
		}
	}
	return nil
}

// Load reads a saved index for ix's root; ErrStale (wrapped) when there is
// none usable, so the caller rebuilds.
func (ix *Index) Load(dir string) error {
	f, err := os.Open(filepath.Join(dir, "index.gob"))
	if errors.Is(err, fs.ErrNotExist) {
		return errNotIndexed
	}
	if err != nil {
		return err
	}
	defer f.Close()
	dec := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20))
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
	ix.mu.Lock()
	defer ix.mu.Unlock()
	sameEmbedder := h.Embedder == embedderKey(ix.emb)
	files, chunks, lex, vecs, vscale, err := decodeParts(dec, h, ix.dim, sameEmbedder)
	if err != nil {
		return fmt.Errorf("%w: corrupt (%v)", ErrStale, err)
	}
	if !sameEmbedder {
		// Another embedder's vectors are never mixed with this one's: the
		// files are re-read and re-embedded by the next Build.
		for _, f := range files {
			if f != nil {
				f.Hash = [16]byte{}
			}
		}
	}
	ix.byID, ix.chunks, ix.lex, ix.sumLen, ix.live = files, chunks, lex, h.SumLen, h.Live
	ix.vecs, ix.vscale = vecs, vscale
	ix.files = map[string]*fileInfo{}
	for _, f := range files {
		if f != nil && len(f.Chunks) > 0 && !ix.chunks[f.Chunks[0]].Dead {
			ix.files[f.Path] = f
		}
	}
	return nil
}

func decodeParts(dec *gob.Decoder, h header, dim int, withVectors bool) (files []*fileInfo, chunks []chunkInfo, lex lexicon, vecs []int8, vscale []float32, err error) {
	files = make([]*fileInfo, 0, h.Files)
	for len(files) < h.Files {
		var part []*fileInfo
		if err = dec.Decode(&part); err != nil {
			return
		}
		files = append(files, part...)
	}
	chunks = make([]chunkInfo, 0, h.Chunks)
	for len(chunks) < h.Chunks {
		var part []chunkInfo
		if err = dec.Decode(&part); err != nil {
			return
		}
		chunks = append(chunks, part...)
	}
	for _, f := range files {
		for _, c := range f.Chunks {
			if int(c) >= len(chunks) {
				err = fmt.Errorf("chunk %d of %s out of range", c, f.Path)
				return
			}
		}
	}
	lex = lexicon{Terms: make(map[string]uint32, h.Terms), Postings: make([][]posting, 0, h.Terms)}
	for len(lex.Postings) < h.Terms {
		var part lexPart
		if err = dec.Decode(&part); err != nil {
			return
		}
		if len(part.Terms) != len(part.Postings) || len(part.Terms) == 0 {
			err = errors.New("malformed lexicon")
			return
		}
		for i, t := range part.Terms {
			for _, p := range part.Postings[i] {
				if int(p.Chunk) >= len(chunks) {
					err = fmt.Errorf("posting of %q out of range", t)
					return
				}
			}
			lex.Terms[t] = uint32(len(lex.Postings))
			lex.Postings = append(lex.Postings, part.Postings[i])
		}
	}
	vecs, vscale = make([]int8, 0, h.Chunks*dim), make([]float32, 0, h.Chunks)
	if !withVectors {
		return files, chunks, lex, make([]int8, h.Chunks*dim), make([]float32, h.Chunks), nil
	}
	for len(vscale) < h.Chunks {
		var b []byte
		var sc []float32
		if err = dec.Decode(&b); err != nil {
			return
		}
		if err = dec.Decode(&sc); err != nil {
			return
		}
		if len(b) != len(sc)*dim || len(sc) == 0 {
			err = errors.New("malformed vectors")
			return
		}
		vecs = append(vecs, bytesInt8(b)...)
		vscale = append(vscale, sc...)
	}
	return
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
	if err := ix.Build(ctx, progress); err != nil {
		return err
	}
	return ix.Save(dir)
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
