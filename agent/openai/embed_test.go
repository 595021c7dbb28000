package openai

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/workspace"
)

func TestEmbedderAgainstAnEmbeddingsEndpoint(t *testing.T) {
	script, err := scripted.Parse([]byte("-- 01.json --\n{\"text\": \"unused\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	// The embeddings endpoint needs no script steps: serve it directly.
	hs := httptest.NewServer(scripted.NewServer(script))
	defer hs.Close()
	url := hs.URL + "/v1"
	ctx := context.Background()
	if _, err := NewEmbedder(ctx, EmbedConfig{BaseURL: url}); err == nil || !strings.Contains(err.Error(), "no model") {
		t.Errorf("no model: %v", err)
	}
	e, err := NewEmbedder(ctx, EmbedConfig{BaseURL: url, APIKey: "test", Model: "scripted-embed"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 64 || e.Name() != "openai:scripted-embed" {
		t.Errorf("dim %d, name %s", e.Dim(), e.Name())
	}
	texts := make([]string, 2*EmbedBatch+5) // three batches
	for i := range texts {
		texts[i] = fmt.Sprintf("token refresh number %d", i)
	}
	texts[7] = "" // empty inputs are sent as a space
	texts[8] = strings.Repeat("long ", 5000)
	vs, err := e.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vs), len(texts))
	}
	again, _ := e.Embed(ctx, texts[100:101])
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != 64 || (i != 7 && math.Abs(n-1) > 1e-4) {
			t.Fatalf("vector %d: len %d, norm² %v", i, len(v), n)
		}
	}
	for i := range again[0] {
		if again[0][i] != vs[100][i] {
			t.Fatal("the same text embedded twice differs: the batch order was lost")
		}
	}

	// Through the index: the external embedder is recorded and used.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "auth.go"), []byte("package auth\n\n// Refresh renews the access token.\nfunc Refresh() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bill.go"), []byte("package bill\n\n// Charge bills a card.\nfunc Charge() {}\n"), 0o644)
	r, _ := workspace.Open(dir)
	ix := index.New(r)
	ix.SetEmbedder(e)
	if err := ix.Build(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search(t.Context(), index.Query{Text: "renews the access token", Max: 5})
	if err != nil || len(hits) == 0 || hits[0].Path != "auth.go" {
		t.Errorf("search with the external embedder = %+v, %v", hits, err)
	}
}

func TestEmbedderUnreachable(t *testing.T) {
	_, err := NewEmbedder(context.Background(), EmbedConfig{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxRetries: -1})
	if err == nil || !strings.Contains(err.Error(), "embeddings (m)") {
		t.Errorf("unreachable endpoint: %v", err)
	}
}
