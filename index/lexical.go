package index

import (
	"math"
)

// Field weights and BM25F parameters, tuned on ../shared/bench dev splits.
const (
	weightPath   = 3.0
	weightSymbol = 4.0
	weightBody   = 1.0
	bm25K1       = 1.2
	bm25B        = 0.75
)

// posting is one chunk's term frequencies in the three fields.
type posting struct {
	Chunk           uint32
	Path, Sym, Body uint16
}

// chunkInfo is one indexed chunk.
type chunkInfo struct {
	File                     uint32
	Start, End               uint32
	LenPath, LenSym, LenBody uint32
	Dead                     bool
}

// lexicon is the inverted index.
type lexicon struct {
	Terms    map[string]uint32
	Postings [][]posting
}

func newLexicon() lexicon { return lexicon{Terms: map[string]uint32{}} }

func (l *lexicon) add(term string, p posting) {
	id, ok := l.Terms[term]
	if !ok {
		id = uint32(len(l.Postings))
		l.Terms[term] = id
		l.Postings = append(l.Postings, nil)
	}
	l.Postings[id] = append(l.Postings[id], p)
}

// fieldCounts counts terms of one chunk per field.
type fieldCounts map[string]*[3]uint16

func (fc fieldCounts) add(field int, term string) {
	c, ok := fc[term]
	if !ok {
		c = new([3]uint16)
		fc[term] = c
	}
	if c[field] < math.MaxUint16 {
		c[field]++
	}
}

// scorer accumulates BM25F scores for one query.
type scorer struct {
	scores  []float32
	touched []uint32
}

// score adds the BM25F contribution of one term.
func (ix *Index) scoreTerm(s *scorer, term string, qWeight float64) {
	id, ok := ix.lex.Terms[term]
	if !ok {
		return
	}
	ps := ix.lex.Postings[id]
	n := float64(ix.live)
	df := float64(len(ps))
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	avg := ix.avgLens()
	for _, p := range ps {
		c := &ix.chunks[p.Chunk]
		if c.Dead {
			continue
		}
		tf := weightPath*float64(p.Path)/(1-bm25B+bm25B*float64(c.LenPath)/avg[0]) +
			weightSymbol*float64(p.Sym)/(1-bm25B+bm25B*float64(c.LenSym)/avg[1]) +
			weightBody*float64(p.Body)/(1-bm25B+bm25B*float64(c.LenBody)/avg[2])
		if s.scores[p.Chunk] == 0 {
			s.touched = append(s.touched, p.Chunk)
		}
		s.scores[p.Chunk] += float32(qWeight * idf * tf * (bm25K1 + 1) / (bm25K1 + tf))
	}
}

func (ix *Index) avgLens() [3]float64 {
	var avg [3]float64
	for i := range avg {
		avg[i] = 1
		if ix.live > 0 && ix.sumLen[i] > 0 {
			avg[i] = ix.sumLen[i] / float64(ix.live)
		}
	}
	return avg
}
