package index

import (
	"bytes"
	"context"
	"math"
	"strings"
)

// vecFieldWeights weigh a term's fields in the default embedder's vectors.
var vecFieldWeights = [numFields]float64{0.5, 2, 1, 1}

// embedCounts is the vector of one chunk's term counts (unnormalised into v).
func (h *HashEmbedder) embedCounts(terms []termCount, idf func(string) float64, v []float32) {
	clear(v)
	for _, tc := range terms {
		w := termWeight(tc.N)
		if w > 0 && idf != nil {
			w *= idf(tc.Term)
		}
		if w > 0 {
			h.addTerm(v, tc.Term, float32(w))
		}
	}
	normalize(v)
}

// embedDoc computes the vectors of an analysed file's chunks (outside the
// index lock). Errors of an external embedder leave the chunks without
// vectors: they are still found lexically.
func (ix *Index) embedDoc(ctx context.Context, d *doc, data []byte) {
	if d == nil || len(d.chunks) == 0 {
		return
	}
	ix.mu.RLock()
	emb, h, tr, hdim, dim := ix.emb, ix.hashEmb, ix.trained, ix.hashDim, ix.dim
	ix.mu.RUnlock()
	d.vecs = make([]int8, len(d.chunks)*dim)
	d.scale = make([]float32, len(d.chunks))
	if h != nil {
		// From the term counts the analysis made; a chunk's vector depends on
		// its text only (the corpus's IDF weighs the query's terms).
		v := make([]float32, dim)
		for i := range d.chunks {
			h.embedCounts(d.terms[i], nil, v[:hdim])
			if tr != nil {
				tr.embedCounts(d.terms[i], v[hdim:])
			}
			d.scale[i] = quantize(v, d.vecs[i*dim:(i+1)*dim])
		}
		return
	}
	texts := make([]string, len(d.chunks))
	lines := bytes.SplitAfter(data, []byte{'\n'})
	for i, c := range d.chunks {
		texts[i] = d.rel + "\n" + string(bytes.Join(lines[min(c.Start-1, len(lines)):min(c.End, len(lines))], nil))
	}
	vs, err := emb.Embed(ctx, texts)
	if err != nil || len(vs) != len(texts) {
		d.vecs, d.scale = nil, nil
		return
	}
	for i, v := range vs {
		if len(v) != dim {
			d.vecs, d.scale = nil, nil
			return
		}
		v = append([]float32(nil), v...)
		normalize(v)
		d.scale[i] = quantize(v, d.vecs[i*dim:(i+1)*dim])
	}
}

// queryVector embeds a query; nil when there is none.
func (ix *Index) queryVector(ctx context.Context, text string) []float32 {
	if ix.hashEmb != nil {
		tf := map[string]int{}
		Tokens(text, func(t string) { tf[t]++ })
		terms := make([]termCount, 0, len(tf))
		for t, n := range tf {
			terms = append(terms, termCount{Term: t, N: [numFields]uint16{fieldBody: uint16(min(n, 1<<16-1))}})
		}
		v := make([]float32, ix.dim)
		ix.hashEmb.embedCounts(terms, ix.idf, v[:ix.hashDim])
		if ix.trained != nil {
			if first, _, multi := strings.Cut(strings.TrimSpace(text), "\n"); multi {
				text = first + "\n" + text // the subject line counts twice (a third time scored the same)
			}
			ix.trained.EmbedText(text, true, v[ix.hashDim:])
		}
		return v
	}
	vs, err := ix.emb.Embed(ctx, []string{text})
	if err != nil || len(vs) != 1 || len(vs[0]) != ix.dim {
		return nil
	}
	v := append([]float32(nil), vs[0]...)
	normalize(v)
	return v
}

// vectorScore is the cosine of a chunk's vector and a unit query vector
// (of the hashed part only when the built-in embedder has a trained part).
func (ix *Index) vectorScore(q []float32, id uint32) float32 {
	s := ix.vscale[id]
	if s == 0 {
		return 0
	}
	return s * dotQ(q[:ix.hashDim], ix.vecs.at(id)[:ix.hashDim])
}

// trainedScore is the cosine of the trained parts (0 without one).
func (ix *Index) trainedScore(q []float32, id uint32) float32 {
	s := ix.vscale[id]
	if s == 0 || ix.trained == nil {
		return 0
	}
	return s * dotQ(q[ix.hashDim:], ix.vecs.at(id)[ix.hashDim:])
}

// termWeight is 1+ln of a term's field-weighted frequency (0 if absent).
func termWeight(n [numFields]uint16) float64 {
	var tf float64
	for f := range numFields {
		tf += vecFieldWeights[f] * float64(n[f])
	}
	switch {
	case tf <= 0:
		return 0
	case tf < 1:
		return tf
	}
	return 1 + math.Log(tf)
}
