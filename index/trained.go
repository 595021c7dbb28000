package index

import (
	"context"
	_ "embed"
	"fmt"
	"log/slog"
	"math"
	"sync"
)

// TrainedEmbedder embeds texts with term vectors trained on this kind of
// machine's code (cmd/autarch-train-embedder; docs/code-search.md): a
// text's vector is the sum of its terms' rows weighted by (1+ln tf)·IDF,
// L2-normalised. Queries and code use different rows for the most frequent
// terms. Terms outside the vocabulary are ignored.
type TrainedEmbedder struct {
	w   *EmbedderWeights
	ids map[string]int32
}

// NewTrainedEmbedder wraps decoded weights.
func NewTrainedEmbedder(w *EmbedderWeights) *TrainedEmbedder {
	ids := make(map[string]int32, len(w.Vocab))
	for i, t := range w.Vocab {
		ids[t] = int32(i)
	}
	return &TrainedEmbedder{w: w, ids: ids}
}

//go:embed embedder/code-embedder.bin
var shippedWeights []byte

// ShippedEmbedder decodes the weights shipped in the binary (once).
var ShippedEmbedder = sync.OnceValues(func() (*TrainedEmbedder, error) {
	var w EmbedderWeights
	if err := w.UnmarshalBinary(shippedWeights); err != nil {
		err = fmt.Errorf("shipped embedder: %w", err)
		slog.Warn("code search falls back to hashed vectors only", "err", err)
		return nil, err
	}
	return NewTrainedEmbedder(&w), nil
})

// Name includes the weights' version: vectors of other weights are never
// compared.
func (e *TrainedEmbedder) Name() string { return "trained-" + e.w.Version }

// Dim is the vector length.
func (e *TrainedEmbedder) Dim() int { return e.w.Dim }

// Vocab is the number of terms with a vector.
func (e *TrainedEmbedder) Vocab() int { return len(e.w.Vocab) }

// Embed embeds texts as code.
func (e *TrainedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = make([]float32, e.w.Dim)
		e.EmbedText(t, false, out[i])
	}
	return out, nil
}

// EmbedText writes the unit vector of a query's or code's text into v.
func (e *TrainedEmbedder) EmbedText(text string, query bool, v []float32) {
	tf := map[int32]float64{}
	Tokens(text, func(s string) {
		if id, ok := e.ids[s]; ok {
			tf[id]++
		}
	})
	clear(v)
	for id, n := range tf {
		e.addRow(v, id, query, float32((1+math.Log(n))*float64(e.w.IDF[id])))
	}
	normalize(v)
}

// embedCounts writes the unit code vector of a chunk's term counts into v
// (every field but the symbol names, which repeat the code's).
func (e *TrainedEmbedder) embedCounts(terms []termCount, v []float32) {
	clear(v)
	for _, tc := range terms {
		id, ok := e.ids[tc.Term]
		if !ok {
			continue
		}
		n := int(tc.N[fieldPath]) + int(tc.N[fieldDoc]) + int(tc.N[fieldBody])
		if n == 0 {
			continue
		}
		e.addRow(v, id, false, float32((1+math.Log(float64(n)))*float64(e.w.IDF[id])))
	}
	normalize(v)
}

// addRow adds w times a term's row (its side's row for adjusted terms).
func (e *TrainedEmbedder) addRow(v []float32, id int32, query bool, w float32) {
	row := int(id)
	if k := e.w.Adjusted; row < k {
		row = len(e.w.Vocab) + row
		if !query {
			row += k
		}
	}
	d := e.w.Dim
	q := e.w.Rows[row*d : (row+1)*d]
	w *= e.w.Scale[row]
	for i := range v {
		v[i] += w * float32(q[i])
	}
}

// BuiltinEmbedder is the built-in embedder: hashed character 3-grams and,
// when Trained is set, the trained term vectors. A vector is the two unit
// vectors concatenated; the index scores and fuses each half separately.
type BuiltinEmbedder struct {
	Hash    *HashEmbedder
	Trained *TrainedEmbedder // nil: hashed 3-grams only
}

// DefaultEmbedder is the built-in embedder the index uses unless told
// otherwise: hashed 3-grams plus the shipped trained vectors when
// trainedByDefault (and the shipped weights decode).
func DefaultEmbedder() *BuiltinEmbedder {
	b := &BuiltinEmbedder{Hash: NewHashEmbedder(DefaultDim)}
	if trainedByDefault {
		b.Trained, _ = ShippedEmbedder()
	}
	return b
}

// Name names both parts.
func (b *BuiltinEmbedder) Name() string {
	if b.Trained == nil {
		return b.Hash.Name()
	}
	return b.Hash.Name() + "+" + b.Trained.Name()
}

// Dim is the concatenated length.
func (b *BuiltinEmbedder) Dim() int {
	if b.Trained == nil {
		return b.Hash.Dim()
	}
	return b.Hash.Dim() + b.Trained.Dim()
}

// Embed embeds texts as code.
func (b *BuiltinEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	hs, err := b.Hash.Embed(ctx, texts)
	if err != nil || b.Trained == nil {
		return hs, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = append(hs[i], make([]float32, b.Trained.Dim())...)
		b.Trained.EmbedText(t, false, out[i][b.Hash.Dim():])
	}
	return out, nil
}

// trainedByDefault puts the shipped trained vectors into the default
// embedder (docs/code-search.md has the measurements behind the choice).
const trainedByDefault = true
