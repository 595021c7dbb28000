package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The saved index is one file, index.bin, read by mapping it into memory:
// opening it costs the file list (decoded) and nothing else; a search
// touches the pages of its terms' postings and its candidates' chunks and
// vectors. The fixed-size sections are this machine's in-memory layout of
// chunkInfo, posting, termEntry, int8 and float32, so they are used in
// place; a file written with another layout (sizes, byte order) is stale
// and rebuilt.
//
//	magic [8]byte | layout [8]uint32 | sections [numSections]{off, len uint64} | sections…
//
// The mapping is private and writable: marking a chunk dead after a load
// copies that page, never writes the file. The file is replaced by rename,
// so a mapping stays valid while another process saves.

const indexFile = "index.bin"

var indexMagic = [8]byte{'A', 'U', 'T', 'I', 'D', 'X', '0', '5'}

// Sections of index.bin, in file order.
const (
	secMeta     = iota // gob: header and files
	secChunks          // []chunkInfo
	secTerms           // term bytes, sorted terms concatenated
	secTermIdx         // []termEntry, in term order
	secPostings        // encoded postings (encodePostings), grouped by term
	secVecs            // []int8, dim per chunk
	secScales          // []float32, one per chunk
	numSections
)

// termEntry locates one term and its postings in the base.
type termEntry struct {
	Off, Len   uint32 // in the term bytes
	Post, Size uint32 // the encoded postings' offset and length
	N          uint32 // the number of postings
}

// layout describes the in-memory forms saved raw.
func layout() [8]uint32 {
	return [8]uint32{0x01020304, uint32(unsafe.Sizeof(chunkInfo{})), uint32(unsafe.Sizeof(posting{})),
		uint32(unsafe.Sizeof(termEntry{})), numFields, numSections}
}

// termDict is the sorted, mapped lexicon of a saved index.
type termDict struct {
	bytes    []byte
	entries  []termEntry
	postList []byte
}

func (d *termDict) len() int {
	if d == nil {
		return 0
	}
	return len(d.entries)
}

func (d *termDict) term(i int) string {
	e := d.entries[i]
	return unsafe.String(unsafe.SliceData(d.bytes[e.Off:]), int(e.Len))
}

// find is the index of term, -1 when absent.
func (d *termDict) find(term string) int {
	if d == nil {
		return -1
	}
	i := sort.Search(len(d.entries), func(i int) bool { return d.term(i) >= term })
	if i < len(d.entries) && d.term(i) == term {
		return i
	}
	return -1
}

// postings decodes term i's postings; a malformed run decodes short.
func (d *termDict) postings(i int) []posting {
	e := d.entries[i]
	return decodePostings(d.postList[e.Post:e.Post+e.Size], int(e.N))
}

// encodePostings appends ps (in increasing chunk order) to b: per
// posting, the chunk's distance from the previous one, a bit mask of the
// fields it occurs in, and those fields' counts, as uvarints.
func encodePostings(b []byte, ps []posting) []byte {
	prev := uint32(0)
	for _, p := range ps {
		b = appendPosting(b, prev, p)
		prev = p.Chunk
	}
	return b
}

// appendPosting appends p, which follows a posting of chunk prev (0 for
// the first).
func appendPosting(b []byte, prev uint32, p posting) []byte {
	b = binary.AppendUvarint(b, uint64(p.Chunk-prev))
	var mask byte
	for f := range numFields {
		if p.N[f] != 0 {
			mask |= 1 << f
		}
	}
	b = append(b, mask)
	for f := range numFields {
		if p.N[f] != 0 {
			b = binary.AppendUvarint(b, uint64(p.N[f]))
		}
	}
	return b
}

// decodePostings decodes at most n postings of b.
func decodePostings(b []byte, n int) []posting {
	out := make([]posting, 0, n)
	var chunk uint64
	for len(out) < n && len(b) > 0 {
		d, k := binary.Uvarint(b)
		if k <= 0 || len(b) < k+1 {
			break
		}
		chunk += d
		mask := b[k]
		b = b[k+1:]
		p := posting{Chunk: uint32(chunk)}
		for f := range numFields {
			if mask&(1<<f) == 0 {
				continue
			}
			v, k := binary.Uvarint(b)
			if k <= 0 {
				return out
			}
			p.N[f] = uint16(v)
			b = b[k:]
		}
		if chunk > uint64(^uint32(0)) {
			break
		}
		out = append(out, p)
	}
	return out
}

// mapped is a saved index mapped into memory.
type mapped struct {
	data     []byte
	meta     []byte
	chunks   []chunkInfo
	dict     *termDict
	vecs     []int8
	scales   []float32
	sections [numSections][2]uint64
}

// mapIndex maps path; errors say why it cannot be used.
func mapIndex(path string) (*mapped, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	head := 8 + 8*4 + numSections*16
	if fi.Size() < int64(head) {
		return nil, errors.New("truncated")
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	m, err := parseMapped(data)
	if err != nil {
		unix.Munmap(data)
		return nil, err
	}
	return m, nil
}

// parseMapped finds the sections of a mapped index.
func parseMapped(data []byte) (*mapped, error) {
	m := &mapped{data: data}
	if [8]byte(data[:8]) != indexMagic {
		return nil, errors.New("not an index of this version")
	}
	var lay [8]uint32
	for i := range lay {
		lay[i] = binary.LittleEndian.Uint32(data[8+4*i:])
	}
	if lay != layout() {
		return nil, errors.New("saved with another memory layout")
	}
	for i := range numSections {
		off := 8 + 32 + 16*i
		m.sections[i] = [2]uint64{binary.LittleEndian.Uint64(data[off:]), binary.LittleEndian.Uint64(data[off+8:])}
		if s := m.sections[i]; s[0] > uint64(len(data)) || s[1] > uint64(len(data))-s[0] || s[0]%8 != 0 {
			return nil, fmt.Errorf("section %d out of range", i)
		}
	}
	m.meta = m.section(secMeta)
	var ok bool
	if m.chunks, ok = view[chunkInfo](m.section(secChunks)); !ok {
		return nil, errors.New("malformed chunks")
	}
	entries, ok := view[termEntry](m.section(secTermIdx))
	if !ok {
		return nil, errors.New("malformed lexicon")
	}
	m.dict = &termDict{bytes: m.section(secTerms), entries: entries, postList: m.section(secPostings)}
	vecs := m.section(secVecs)
	m.vecs = bytesInt8(vecs)
	if m.scales, ok = view[float32](m.section(secScales)); !ok {
		return nil, errors.New("malformed vectors")
	}
	return m, nil
}

func (m *mapped) section(i int) []byte {
	s := m.sections[i]
	return m.data[s[0] : s[0]+s[1] : s[0]+s[1]]
}

// view is b as a slice of T (b's length a multiple of T's size).
func view[T any](b []byte) ([]T, bool) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	if len(b)%size != 0 {
		return nil, false
	}
	if len(b) == 0 {
		return nil, true
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size), true
}

// raw is s's memory as bytes.
func raw[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// segmentWriter writes index.bin's sections in order.
type segmentWriter struct {
	f        *os.File
	w        *bufio.Writer
	off      uint64
	sections [numSections][2]uint64
	cur      int
}

func newSegmentWriter(f *os.File) (*segmentWriter, error) {
	sw := &segmentWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	head := make([]byte, 8+32+16*numSections)
	sw.off = uint64(len(head))
	if _, err := sw.w.Write(head); err != nil { // filled in by finish
		return nil, err
	}
	return sw, nil
}

// begin starts section i (sections are written in order).
func (sw *segmentWriter) begin(i int) error {
	if pad := (8 - sw.off%8) % 8; pad > 0 {
		if _, err := sw.w.Write(make([]byte, pad)); err != nil {
			return err
		}
		sw.off += pad
	}
	sw.cur = i
	sw.sections[i][0] = sw.off
	return nil
}

func (sw *segmentWriter) Write(b []byte) (int, error) {
	n, err := sw.w.Write(b)
	sw.off += uint64(n)
	sw.sections[sw.cur][1] += uint64(n)
	return n, err
}

func (sw *segmentWriter) finish() error {
	if err := sw.w.Flush(); err != nil {
		return err
	}
	head := make([]byte, 8+32+16*numSections)
	copy(head, indexMagic[:])
	for i, v := range layout() {
		binary.LittleEndian.PutUint32(head[8+4*i:], v)
	}
	for i, s := range sw.sections {
		binary.LittleEndian.PutUint64(head[40+16*i:], s[0])
		binary.LittleEndian.PutUint64(head[48+16*i:], s[1])
	}
	if _, err := sw.f.WriteAt(head, 0); err != nil {
		return err
	}
	return nil
}

var _ io.Writer = (*segmentWriter)(nil)

// mergedTerms lists every term of the base and of the added postings,
// sorted.
func (l *lexicon) mergedTerms() []string {
	added := make([]string, 0, len(l.Terms))
	for t := range l.Terms {
		if l.base.find(t) < 0 {
			added = append(added, t)
		}
	}
	sort.Strings(added)
	out := make([]string, 0, l.base.len()+len(added))
	i, j := 0, 0
	for i < l.base.len() || j < len(added) {
		switch {
		case j == len(added) || i < l.base.len() && strings.Compare(l.base.term(i), added[j]) < 0:
			out = append(out, l.base.term(i))
			i++
		default:
			out = append(out, added[j])
			j++
		}
	}
	return out
}
