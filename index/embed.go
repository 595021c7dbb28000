package index

import (
	"context"
	"fmt"
	"math"
)

// Embedder turns texts into vectors of Dim() float32s. The index stores the
// vectors of its chunks and ranks them by cosine similarity to the query's
// vector, fused with the lexical ranking. An OpenAI-compatible
// /v1/embeddings client can implement it; the default is HashEmbedder.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the model: vectors of different names or dimensions
	// are never compared (a saved index of another embedder is re-embedded).
	Name() string
	Dim() int
}

// DefaultDim is the dimension of the default embedder.
const DefaultDim = 256

// HashEmbedder is the weight-free default embedder: each term (identifiers
// whole and split, as Tokens makes them) contributes signed hashed features
// for its character 3-grams ("<ab", "abc", "bc>"), so that related
// spellings (marshal, marshaler, unmarshal) share most of their features.
// Term weights are 1+ln(tf) times the inverse document frequency from IDF
// when it is set (the index weighs query terms by its corpus's IDF; chunk
// vectors depend on the chunk's text only). Vectors are L2-normalised.
type HashEmbedder struct {
	dim int
	// IDF weights a term; nil weighs all terms alike. The index sets it from
	// its own corpus.
	IDF func(term string) float64
}

// NewHashEmbedder returns a hashing embedder of dim dimensions.
func NewHashEmbedder(dim int) *HashEmbedder {
	if dim <= 0 {
		dim = DefaultDim
	}
	return &HashEmbedder{dim: dim}
}

// Name includes the feature scheme's version.
func (h *HashEmbedder) Name() string { return "hash-char3-v1" }

// Dim is the vector length.
func (h *HashEmbedder) Dim() int { return h.dim }

// Embed embeds each text.
func (h *HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tf := map[string]float64{}
		Tokens(t, func(s string) { tf[s]++ })
		v := make([]float32, h.dim)
		for term, n := range tf {
			w := 1 + math.Log(n)
			if h.IDF != nil {
				w *= h.IDF(term)
			}
			h.addTerm(v, term, float32(w))
		}
		normalize(v)
		out[i] = v
	}
	return out, nil
}

// addTerm adds w times the term's features to v: the 3-grams of "<term>",
// sharing one unit of weight. (A whole-term feature did not help on the dev
// sets: it collides with unrelated terms at this dimension.)
func (h *HashEmbedder) addTerm(v []float32, term string, w float32) {
	dim := uint64(len(v))
	// "<term>" has len(term) 3-grams.
	n := len(term)
	if n == 0 || n > 64 {
		return
	}
	var buf [66]byte
	buf[0] = '<'
	copy(buf[1:], term)
	buf[n+1] = '>'
	gw := w / float32(math.Sqrt(float64(n)))
	for i := 0; i < n; i++ {
		x := uint64(fnvGram)
		x = (x ^ uint64(buf[i])) * fnvPrime
		x = (x ^ uint64(buf[i+1])) * fnvPrime
		x = (x ^ uint64(buf[i+2])) * fnvPrime
		x = fmix(x)
		if x>>63 == 0 {
			v[x%dim] += gw
		} else {
			v[x%dim] -= gw
		}
	}
}

// FNV-1a's 64-bit prime and offset basis; the 3-gram hash starts from the
// basis xor a constant.
const (
	fnvPrime  = 1099511628211
	fnvOffset = 14695981039346656037
	fnvGram   = fnvOffset ^ 0x9e3779b97f4a7c15
)

// fmix is murmur3's 64-bit finaliser, so that low bits mix well.
func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// normalize scales v to unit length (a zero vector stays zero).
func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// quantize stores a unit vector as int8s and a scale (v ≈ q × scale).
func quantize(v []float32, q []int8) float32 {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(q)
		return 0
	}
	s := m / 127
	for i, x := range v {
		q[i] = int8(math.Round(float64(x / s)))
	}
	return s
}

// dotQ is the dot product of a float vector and a quantized one (without
// its scale).
func dotQ(a []float32, b []int8) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * float32(b[i])
		s1 += a[i+1] * float32(b[i+1])
		s2 += a[i+2] * float32(b[i+2])
		s3 += a[i+3] * float32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += a[i] * float32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// embedderKey identifies an embedder's vector space.
func embedderKey(e Embedder) string { return fmt.Sprintf("%s/%d", e.Name(), e.Dim()) }
