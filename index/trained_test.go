package index

import (
	"context"
	"math"
	"strings"
	"testing"
)

// tinyWeights embeds in 2 dimensions: queries put "cache" on x and
// "dial" on y; code does the same, or the swap when swapped.
func tinyWeights(version string, swapped bool) *EmbedderWeights {
	w := &EmbedderWeights{Version: version, Dim: 2, Vocab: []string{stemString("cache"), stemString("dial")}, IDF: []float32{1, 1}, Adjusted: 2,
		Rows:  []int8{50, 50, 50, 50, 127, 0, 0, 127, 127, 0, 0, 127},
		Scale: []float32{0.01, 0.01, 0.01, 0.01, 0.01, 0.01}}
	if swapped {
		copy(w.Rows[8:], []int8{0, 127, 127, 0})
	}
	return w
}

func TestWeightsRoundTripAndRefusals(t *testing.T) {
	w := tinyWeights("t1", false)
	data, err := w.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got EmbedderWeights
	if err := got.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if got.Version != "t1" || got.Dim != 2 || strings.Join(got.Vocab, ",") != stemString("cache")+","+stemString("dial") || got.Adjusted != 2 || len(got.Rows) != 12 || got.Rows[4] != 127 || got.Scale[5] != 0.01 {
		t.Errorf("round trip: %+v", got)
	}
	bad := &EmbedderWeights{Version: "x", Dim: 2, Vocab: []string{"a"}, IDF: []float32{1}, Rows: []int8{1}, Scale: []float32{1}}
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("rows shorter than the vocabulary encoded")
	}
	tests := []struct {
		name, data, want string
	}{
		{"empty", "", "bad magic"},
		{"other file", "PK\x03\x04 a zip file, not weights", "bad magic"},
		{"truncated rows", string(data[:len(data)-3]), "rows"},
		{"truncated header", string(data[:len(weightsMagic)+3]), "embedder weights"},
		{"huge dimension", weightsMagic + "\x01v\xff\xff\x03\x01\x00", "implausible sizes"},
	}
	for _, tt := range tests {
		var w EmbedderWeights
		if err := w.UnmarshalBinary([]byte(tt.data)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestTrainedEmbedderSides(t *testing.T) {
	e := NewTrainedEmbedder(tinyWeights("t1", true))
	q, c := make([]float32, 2), make([]float32, 2)
	e.EmbedText("cache", true, q)
	e.EmbedText("cache", false, c)
	if q[0] < 0.99 || c[1] < 0.99 {
		t.Errorf("query row %v, code row %v: want the side's own rows", q, c)
	}
	e.EmbedText("unknown words only", true, q)
	if q[0] != 0 || q[1] != 0 {
		t.Errorf("out-of-vocabulary text = %v, want the zero vector", q)
	}
	if e.Name() != "trained-t1" || e.Dim() != 2 {
		t.Errorf("name %q dim %d", e.Name(), e.Dim())
	}
}

func TestShippedEmbedderDecodes(t *testing.T) {
	e, err := ShippedEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != DefaultDim || e.Vocab() < 10000 {
		t.Errorf("shipped embedder: dim %d, %d terms", e.Dim(), e.Vocab())
	}
	want := NewHashEmbedder(DefaultDim).Name()
	if trainedByDefault {
		want += "+" + e.Name()
	}
	if got := New(nil).emb.Name(); got != want {
		t.Errorf("default embedder %q, want %q", got, want)
	}
}

// A saved index of other trained weights is re-embedded with the new ones:
// their version is part of the embedder's key.
func TestTrainedVersionReembeds(t *testing.T) {
	r, _ := repo(t, map[string]string{
		"cache/lru.go": "package cache\n\n// evictOldest drops the least recently used entry.\nfunc evictOldest(c *LRUCache) {}\n",
		"net/dial.go":  "package net\n\n// DialTimeout connects with a deadline.\nfunc DialTimeout(addr string) {}\n",
	})
	top := func(ix *Index) string {
		hits, err := ix.search(t.Context(), Query{Text: "cache", Max: 2}, rankTrained)
		if err != nil || len(hits) == 0 {
			t.Fatalf("trained hits = %+v, %v", hits, err)
		}
		return hits[0].Path
	}
	old := New(r)
	old.SetEmbedder(&BuiltinEmbedder{Hash: NewHashEmbedder(DefaultDim), Trained: NewTrainedEmbedder(tinyWeights("v1", true))})
	if err := old.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := top(old); got != "net/dial.go" {
		t.Fatalf("swapped weights rank %s first", got)
	}
	state := t.TempDir()
	if err := old.Save(state); err != nil {
		t.Fatal(err)
	}
	ix := New(r)
	ix.SetEmbedder(&BuiltinEmbedder{Hash: NewHashEmbedder(DefaultDim), Trained: NewTrainedEmbedder(tinyWeights("v2", false))})
	if err := Open(context.Background(), ix, state, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got := top(ix); got != "cache/lru.go" {
		t.Errorf("after new weights, %s first: the old vectors were kept", got)
	}
	// Fused search over both vector parts still finds by name.
	if hits := search(t, ix, "DialTimeout"); len(hits) == 0 || hits[0].Path != "net/dial.go" {
		t.Errorf("fused hits = %+v", hits)
	}
}

func TestFuseThreeWayAndMixByLength(t *testing.T) {
	got := fuse(mix{lex: 0.4, hash: 0.3, trained: 0.3}, []float64{10, 5, 0}, []float64{0.1, 0.3, 0.5}, []float64{0.9, 0.1, 0.5})
	// Fewer than minMaxPopulation candidates: each list scales from 0.
	want := []float64{0.4 + 0.3*0.2 + 0.3, 0.4*0.5 + 0.3*0.6 + 0.3*0.1/0.9, 0.3 + 0.3*0.5/0.9}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Fatalf("fuse = %v, want %v", got, want)
		}
	}
	tests := []struct {
		trained bool
		words   int
		want    mix
	}{
		{false, 3, mix{lex: fusionAlpha, hash: 1 - fusionAlpha}},
		{false, 80, mix{lex: fusionAlpha, hash: 1 - fusionAlpha}},
		{true, 3, mix{lex: shortMixLex, hash: shortMixHash, trained: 1 - shortMixLex - shortMixHash}},
		{true, shortQueryWords, mix{lex: shortMixLex, hash: shortMixHash, trained: 1 - shortMixLex - shortMixHash}},
		{true, shortQueryWords + 1, mix{lex: longMixLex, hash: longMixHash, trained: 1 - longMixLex - longMixHash}},
	}
	for _, tt := range tests {
		if got := defaultMix(tt.trained, tt.words); got != tt.want {
			t.Errorf("defaultMix(%v, %d) = %+v, want %+v", tt.trained, tt.words, got, tt.want)
		}
	}
}

func TestQueryWords(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"read a file line by line", 6},
		{"  trailing newline only\n", 3},
		{"add fp3fp1 register shape.\n\nThis is for dot products.", shortQueryWords + 1},
		{strings.Repeat("word ", shortQueryWords+4), shortQueryWords + 4},
		{"a\nb", shortQueryWords + 1},
		{"", 0},
	}
	for _, tt := range tests {
		if got := queryWords(tt.text); got != tt.want {
			t.Errorf("queryWords(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestAddSecondChunk(t *testing.T) {
	ix := &Index{chunks: []chunkInfo{{File: 0}, {File: 0}, {File: 1}, {File: 2}, {File: 2}, {File: 2}}}
	res := []scored{
		{id: 0, score: 1, adjusted: 2},     // file 0, best
		{id: 1, score: 0.5, adjusted: 0.5}, // file 0, second
		{id: 2, score: 1.05, adjusted: 1.05},
		{id: 3, score: 0.2, adjusted: 0.2},
		{id: 4, score: 0.4, adjusted: 0.4},
		{id: 5, score: 0.1, adjusted: 0.1}, // file 2's third: not counted
	}
	ix.addSecondChunk(res)
	want := []scored{
		{id: 0, score: 1.1, adjusted: 2.2}, // the pattern weight (×2) is kept
		{id: 1, score: 0.6, adjusted: 0.6},
		{id: 2, score: 1.05, adjusted: 1.05}, // one candidate: unchanged
		{id: 3, score: 0.24, adjusted: 0.24},
		{id: 4, score: 0.44, adjusted: 0.44},
		{id: 5, score: 0.14, adjusted: 0.14},
	}
	for i := range want {
		if d, e := res[i].score-want[i].score, res[i].adjusted-want[i].adjusted; math.Abs(d) > 1e-9 || math.Abs(e) > 1e-9 {
			t.Errorf("candidate %d = %+v, want %+v", i, res[i], want[i])
		}
	}
	if !(res[0].score > res[2].score) {
		t.Errorf("a file matching in two places (%v) should now outrank a single slightly better match (%v)", res[0].score, res[2].score)
	}
}
