package index

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"
)

// formatVersion changes whenever the saved layout or the analysis changes;
// an index saved with another version is rebuilt.
const formatVersion = 4

// saved is the on-disk form of an index.
type saved struct {
	Version int
	Root    string
	Files   []*fileInfo
	Chunks  []chunkInfo
	Lex     lexicon
	SumLen  [numFields]float64
	Live    int
	// Embedder is the name/dim of the vectors' embedder; Vecs holds dim
	// int8s per chunk, times VScale (0: no vector).
	Embedder string
	Vecs     []byte
	VScale   []float32
}

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
	s := saved{Version: formatVersion, Root: ix.root.Dir(), Files: ix.byID, Chunks: ix.chunks, Lex: ix.lex, SumLen: ix.sumLen, Live: ix.live,
		Embedder: embedderKey(ix.emb), Vecs: int8Bytes(ix.vecs), VScale: ix.vscale}
	tmp, err := os.CreateTemp(dir, "index-*.tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	err = gob.NewEncoder(w).Encode(&s)
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
	var s saved
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&s); err != nil {
		return fmt.Errorf("%w: corrupt (%v)", ErrStale, err)
	}
	if s.Version != formatVersion {
		return fmt.Errorf("%w: saved with format %d, this version uses %d", ErrStale, s.Version, formatVersion)
	}
	if s.Root != ix.root.Dir() {
		return fmt.Errorf("%w: saved for %s", ErrStale, s.Root)
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.byID, ix.chunks, ix.lex, ix.sumLen, ix.live = s.Files, s.Chunks, s.Lex, s.SumLen, s.Live
	if s.Embedder == embedderKey(ix.emb) && len(s.VScale) == len(s.Chunks) && len(s.Vecs) == len(s.Chunks)*ix.dim {
		ix.vecs, ix.vscale = bytesInt8(s.Vecs), s.VScale
	} else {
		// Another embedder's vectors are never mixed with this one's: the
		// files are re-read and re-embedded by the next Build.
		ix.vecs, ix.vscale = make([]int8, len(s.Chunks)*ix.dim), make([]float32, len(s.Chunks))
		for _, f := range s.Files {
			if f != nil {
				f.Hash = [16]byte{}
			}
		}
	}
	if ix.lex.Terms == nil {
		ix.lex = newLexicon()
	}
	ix.files = map[string]*fileInfo{}
	for _, f := range s.Files {
		if f != nil && len(f.Chunks) > 0 && !ix.chunks[f.Chunks[0]].Dead {
			ix.files[f.Path] = f
		}
	}
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
