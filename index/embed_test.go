package index

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

func embedOne(t *testing.T, e Embedder, text string) []float32 {
	t.Helper()
	vs, err := e.Embed(context.Background(), []string{text})
	if err != nil || len(vs) != 1 || len(vs[0]) != e.Dim() {
		t.Fatalf("Embed(%q) = %d vectors, %v", text, len(vs), err)
	}
	return vs[0]
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestHashEmbedderDeterministicAndNormalised(t *testing.T) {
	a, b := NewHashEmbedder(DefaultDim), NewHashEmbedder(DefaultDim)
	for _, text := range []string{"parseHTTPHeader", "func ReadFile(name string) ([]byte, error)", "ok"} {
		va, vb := embedOne(t, a, text), embedOne(t, b, text)
		for i := range va {
			if va[i] != vb[i] {
				t.Fatalf("%q: embedders disagree at %d", text, i)
			}
		}
		if n := math.Sqrt(cosine(va, va)); math.Abs(n-1) > 1e-5 {
			t.Errorf("%q: norm %f", text, n)
		}
	}
	if v := embedOne(t, a, "the of and"); cosine(v, v) != 0 { // stopwords only
		t.Errorf("empty text has a non-zero vector")
	}
	if a.Dim() != DefaultDim || NewHashEmbedder(64).Dim() != 64 || a.Name() == "" {
		t.Errorf("dim/name: %d %q", a.Dim(), a.Name())
	}
}

func TestHashEmbedderSimilarIdentifiersCloser(t *testing.T) {
	e := NewHashEmbedder(DefaultDim)
	tests := []struct{ a, near, far string }{
		{"parseHeader", "parse_headers", "renderTemplate"},
		{"readFileContents", "ReadFile", "socketTimeout"},
		{"marshalJSON", "json.Marshal", "spinLock"},
		{"UnmarshalText", "unmarshal text", "gcSweep"},
		{"connection pool", "ConnPool connections", "matrix inverse"},
	}
	for _, tt := range tests {
		a, n, f := embedOne(t, e, tt.a), embedOne(t, e, tt.near), embedOne(t, e, tt.far)
		if cn, cf := cosine(a, n), cosine(a, f); cn <= cf || cn < 0.3 {
			t.Errorf("%q: cos(%q) = %.3f, cos(%q) = %.3f", tt.a, tt.near, cn, tt.far, cf)
		}
	}
}

func TestQuantizedDot(t *testing.T) {
	e := NewHashEmbedder(DefaultDim)
	a, b := embedOne(t, e, "bufio scanner buffer"), embedOne(t, e, "scan lines with a buffered reader")
	q := make([]int8, len(b))
	s := quantize(b, q)
	if got, want := float64(s*dotQ(a, q)), cosine(a, b); math.Abs(got-want) > 0.02 {
		t.Errorf("quantized cosine %.4f, exact %.4f", got, want)
	}
}

func TestFuse(t *testing.T) {
	tests := []struct {
		name   string
		alpha  float64
		a, b   []float64
		want   []float64
		winner int
	}{
		{"minmax equal weights", 0.5, []float64{10, 5, 0}, []float64{0.1, 0.3, 0.5}, []float64{0.6, 0.55, 0.5}, -1},
		{"minmax lexical share", 0.75, []float64{10, 5, 0}, []float64{0.1, 0.3, 0.5}, []float64{0.8, 0.525, 0.25}, 0},
		{"minmax vector share", 0.25, []float64{10, 5, 0}, []float64{0.1, 0.3, 0.5}, []float64{0.4, 0.575, 0.75}, 2},
		{"minmax flat list", 0.5, []float64{3, 3}, []float64{0.2, 0.4}, []float64{0.75, 1}, 1},
		{"minmax weaker of two still scores", 0.7, []float64{4, 2}, []float64{0.5, 0.25}, []float64{1, 0.5}, 0},
		{"minmax negative similarities", 0, []float64{1, 1}, []float64{0.5, -0.5}, []float64{1, 0}, 0},
		{"minmax all zero", 0.5, []float64{0, 0}, []float64{0, 0}, []float64{0, 0}, -1},
		{"empty", 0.5, nil, nil, []float64{}, -1},
	}
	for _, tt := range tests {
		got := fuse(mix{lex: tt.alpha, hash: 1 - tt.alpha}, tt.a, tt.b, make([]float64, len(tt.a)))
		if len(got) != len(tt.a) {
			t.Fatalf("%s: %d scores for %d candidates", tt.name, len(got), len(tt.a))
		}
		for i := range tt.want {
			if math.Abs(got[i]-tt.want[i]) > 1e-9 {
				t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
				break
			}
		}
		if tt.winner >= 0 {
			for i := range got {
				if i != tt.winner && got[i] >= got[tt.winner] {
					t.Errorf("%s: %d does not win: %v", tt.name, tt.winner, got)
				}
			}
		}
	}
}

func TestTopKAndUnion(t *testing.T) {
	scores := map[uint32]float32{1: 0.5, 2: 3, 3: 0, 4: 2, 5: 3, 6: -1}
	ids := []uint32{1, 2, 3, 4, 5, 6}
	got := topK(ids, func(id uint32) float32 { return scores[id] }, 3)
	if want := []uint32{2, 5, 4}; !equalIDs(got, want) {
		t.Errorf("topK = %v, want %v", got, want)
	}
	if got := topK(ids, func(id uint32) float32 { return scores[id] }, 10); !equalIDs(got, []uint32{2, 5, 4, 1}) {
		t.Errorf("topK of all = %v (no zero or negative scores)", got)
	}
	if got := union([]uint32{1, 2}, []uint32{2, 3, 1, 4}); !equalIDs(got, []uint32{1, 2, 3, 4}) {
		t.Errorf("union = %v", got)
	}
}

func equalIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fakeEmbedder stands for an OpenAI-compatible service: its vectors are
// the hash embedder's with a different name, and it counts its calls.
type fakeEmbedder struct {
	*HashEmbedder
	name  string
	calls atomic.Int32
}

func (f *fakeEmbedder) Name() string { return f.name }
func (f *fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	return f.HashEmbedder.Embed(ctx, texts)
}

func TestVectorsFusedPersistedAndReembedded(t *testing.T) {
	r, _ := repo(t, map[string]string{
		"cache/lru.go":  "package cache\n\n// evictOldest drops the least recently used entry.\nfunc evictOldest(c *LRUCache) {}\n",
		"net/dial.go":   "package net\n\n// DialTimeout connects with a deadline.\nfunc DialTimeout(addr string) {}\n",
		"text/parse.go": "package text\n\n// parseTemplates reads template files.\nfunc parseTemplates(names []string) {}\n",
	})
	ix := built(t, r)
	// Sub-word match only the vectors see: "evicting" shares 3-grams with
	// evictOldest, "caches" with LRUCache.
	hits, err := ix.search(t.Context(), Query{Text: "evicting caches", Max: 3}, rankVector)
	if err != nil || len(hits) == 0 || hits[0].Path != "cache/lru.go" {
		t.Fatalf("vector hits = %+v, %v", hits, err)
	}
	if hits := search(t, ix, "template parsing"); len(hits) == 0 || hits[0].Path != "text/parse.go" {
		t.Errorf("fused hits = %+v", hits)
	}
	ix2, state := reloaded(t, ix, r)
	a, _ := ix.search(t.Context(), Query{Text: "evicting caches", Max: 3}, rankVector)
	b, _ := ix2.search(t.Context(), Query{Text: "evicting caches", Max: 3}, rankVector)
	if len(a) != len(b) || a[0] != b[0] {
		t.Errorf("loaded vectors differ: %+v vs %+v", a, b)
	}
	// Another embedder: the saved vectors are not used, and Open re-embeds
	// every file through it.
	fake := &fakeEmbedder{HashEmbedder: NewHashEmbedder(32), name: "remote-model"}
	ix3 := New(r)
	ix3.SetEmbedder(fake)
	if err := Open(context.Background(), ix3, state, nil, nil); err != nil {
		t.Fatal(err)
	}
	if fake.calls.Load() < 3 {
		t.Errorf("external embedder called %d times, want once per file", fake.calls.Load())
	}
	if hits, _ := ix3.search(t.Context(), Query{Text: "DialTimeout", Max: 3}, rankVector); len(hits) == 0 || hits[0].Path != "net/dial.go" {
		t.Errorf("external vectors: %+v", hits)
	}
	// Changing the embedder of a built index re-embeds on the next Build.
	fake2 := &fakeEmbedder{HashEmbedder: NewHashEmbedder(16), name: "other-model"}
	ix.SetEmbedder(fake2)
	if err := ix.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if fake2.calls.Load() < 3 {
		t.Errorf("SetEmbedder then Build embedded %d files", fake2.calls.Load())
	}
	if hits, _ := ix.search(t.Context(), Query{Text: "DialTimeout", Max: 3}, rankVector); len(hits) == 0 || hits[0].Path != "net/dial.go" {
		t.Errorf("after SetEmbedder: %+v", hits)
	}
	data, err := os.ReadFile(filepath.Join(state, indexFile))
	if err != nil || !strings.Contains(string(data), "remote-model/32") {
		t.Errorf("saved index does not record the embedder (%v)", err)
	}
}
