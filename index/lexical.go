package index

import (
	"cmp"
	"math"
	"slices"
)

// Fields of a chunk.
const (
	fieldPath   = iota // the file's path
	fieldSymbol        // declared names
	fieldDoc           // comments and docstrings
	fieldBody          // the rest
	numFields
)

// fieldWeights weigh a term's occurrences per field (path, symbol, doc,
// body), tuned on the ../shared/bench dev splits.
var fieldWeights = [numFields]float64{3, 8, 2, 1}

// BM25F parameters, tuned on the ../shared/bench dev splits.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// posting is one chunk's term frequencies in the fields.
type posting struct {
	Chunk uint32
	N     [numFields]uint16
}

// chunkInfo is one indexed chunk.
type chunkInfo struct {
	File       uint32
	Start, End uint32
	Len        [numFields]uint32
	Dead       bool
}

// lexicon is the inverted index: a sorted base read from a saved index
// (memory-mapped, nil for a fresh index) and the postings added since, in
// memory. A term's postings are its base postings then its added ones.
type lexicon struct {
	base  *termDict
	Terms map[string]uint32 // terms with postings added since the base
	// added postings per term id, encoded (encodePostings: chunk ids only
	// grow, so they delta-encode as they come), with their last chunk and
	// count: a third of the memory of []posting while building.
	enc   [][]byte
	last  []uint32
	count []uint32
	fresh int // added terms the base does not have
	bytes int // encoded bytes added
}

func newLexicon() lexicon { return lexicon{Terms: map[string]uint32{}} }

func (l *lexicon) add(term string, p posting) {
	id, ok := l.Terms[term]
	if !ok {
		id = uint32(len(l.enc))
		l.Terms[term] = id
		l.enc = append(l.enc, nil)
		l.last = append(l.last, 0)
		l.count = append(l.count, 0)
		if l.base.find(term) < 0 {
			l.fresh++
		}
	}
	if l.count[id] > 0 && p.Chunk < l.last[id] {
		// chunks are numbered as they are added: never reached; kept
		// correct by re-encoding in order
		ps := append(decodePostings(l.enc[id], int(l.count[id])), p)
		slices.SortFunc(ps, func(a, b posting) int { return cmp.Compare(a.Chunk, b.Chunk) })
		l.enc[id], l.last[id] = encodePostings(l.enc[id][:0], ps), ps[len(ps)-1].Chunk
		l.count[id]++
		return
	}
	n := len(l.enc[id])
	l.enc[id] = appendPosting(l.enc[id], l.last[id], p)
	l.bytes += len(l.enc[id]) - n
	l.last[id] = p.Chunk
	l.count[id]++
}

// postings are a term's postings: those of the base and those added.
func (l *lexicon) postings(term string) (base, added []posting) {
	if i := l.base.find(term); i >= 0 {
		base = l.base.postings(i)
	}
	if id, ok := l.Terms[term]; ok {
		added = decodePostings(l.enc[id], int(l.count[id]))
	}
	return base, added
}

// size is the number of distinct terms.
func (l *lexicon) size() int { return l.base.len() + l.fresh }

// termCount is a term's frequency per field in one chunk.
type termCount struct {
	Term string
	N    [numFields]uint16
}

// idf is the BM25 inverse document frequency of a term (0 when unknown).
func (ix *Index) idf(term string) float64 {
	base, added := ix.lex.postings(term)
	if len(base)+len(added) == 0 {
		return 0
	}
	return bm25IDF(ix.live, len(base)+len(added))
}

func bm25IDF(live, df int) float64 {
	n, d := float64(live), float64(df)
	return math.Log(1 + max(0, n-d+0.5)/(d+0.5))
}

// scoreTerm adds the BM25F contribution of one term to scores.
func (ix *Index) scoreTerm(s *scorer, term string, qWeight float64) {
	base, added := ix.lex.postings(term)
	if len(base)+len(added) == 0 {
		return
	}
	n := float64(ix.live)
	df := float64(len(base) + len(added))
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	avg := ix.avgLens()
	var norm [numFields]float64 // weight / average length
	for f := range norm {
		norm[f] = bm25B / avg[f]
	}
	for _, p := range twoRuns(base, added) {
		if int(p.Chunk) >= len(ix.chunks) {
			continue // a corrupt saved posting
		}
		c := &ix.chunks[p.Chunk]
		if c.Dead {
			continue
		}
		var tf float64
		for f := range numFields {
			if p.N[f] != 0 {
				tf += fieldWeights[f] * float64(p.N[f]) / (1 - bm25B + norm[f]*float64(c.Len[f]))
			}
		}
		if s.scores[p.Chunk] == 0 {
			s.touched = append(s.touched, p.Chunk)
		}
		s.scores[p.Chunk] += float32(qWeight * idf * tf * (bm25K1 + 1) / (bm25K1 + tf))
	}
}

// scorer accumulates scores for one query.
type scorer struct {
	scores  []float32
	touched []uint32
}

func (ix *Index) avgLens() [numFields]float64 {
	var avg [numFields]float64
	for i := range avg {
		avg[i] = 1
		if ix.live > 0 && ix.sumLen[i] > 0 {
			avg[i] = ix.sumLen[i] / float64(ix.live)
		}
	}
	return avg
}

// fileMix is the share of the file-level BM25F score in a chunk's lexical
// score: a chunk of a file that matches the query as a whole ranks higher.
const fileMix = 0.3

// fileScores scores whole files by BM25F over the sum of their chunks'
// term frequencies (a file's path counted once).
func (ix *Index) fileScores(qterms map[string]float64) []float32 {
	nf := len(ix.byID)
	lens := make([]float64, nf)
	var total float64
	files := 0
	for i := range ix.chunks {
		c := &ix.chunks[i]
		if c.Dead {
			continue
		}
		if lens[c.File] == 0 {
			files++
			lens[c.File] = fieldWeights[fieldPath] * float64(c.Len[fieldPath])
		}
		for f := fieldSymbol; f < numFields; f++ {
			lens[c.File] += fieldWeights[f] * float64(c.Len[f])
		}
	}
	for _, l := range lens {
		total += l
	}
	if files == 0 {
		return nil
	}
	avg := total / float64(files)
	out := make([]float32, nf)
	acc := make([]float64, nf)
	var touched []uint32
	for term, qw := range qterms {
		base, added := ix.lex.postings(term)
		if len(base)+len(added) == 0 {
			continue
		}
		touched = touched[:0]
		for _, p := range twoRuns(base, added) {
			if int(p.Chunk) >= len(ix.chunks) {
				continue
			}
			c := &ix.chunks[p.Chunk]
			if c.Dead {
				continue
			}
			if acc[c.File] == 0 {
				touched = append(touched, c.File)
				acc[c.File] = fieldWeights[fieldPath] * float64(p.N[fieldPath])
			}
			for f := fieldSymbol; f < numFields; f++ {
				acc[c.File] += fieldWeights[f] * float64(p.N[f])
			}
		}
		df := float64(len(touched))
		idf := math.Log(1 + (float64(files)-df+0.5)/(df+0.5))
		for _, f := range touched {
			tf := acc[f] / (1 - bm25B + bm25B*lens[f]/avg)
			out[f] += float32(qw * idf * tf * (bm25K1 + 1) / (bm25K1 + tf))
			acc[f] = 0
		}
	}
	return out
}

// twoRuns iterates two runs of postings as one.
func twoRuns(a, b []posting) func(yield func(int, posting) bool) {
	return func(yield func(int, posting) bool) {
		for i, p := range a {
			if !yield(i, p) {
				return
			}
		}
		for i, p := range b {
			if !yield(len(a)+i, p) {
				return
			}
		}
	}
}
