package openai

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/autarch-dev/autarch/index"
)

// EmbedBatch is how many texts one /v1/embeddings request carries.
const EmbedBatch = 64

// maxEmbedChars caps each text sent (about 2k tokens), so one long chunk
// does not fail a batch against a model's input limit.
const maxEmbedChars = 8000

// EmbedConfig configures an OpenAI-compatible /v1/embeddings endpoint
// (OpenAI, Ollama, LM Studio, vLLM).
type EmbedConfig struct {
	BaseURL string
	APIKey  string
	// Model is the embedding model, e.g. "text-embedding-3-small" or
	// "nomic-embed-text".
	Model string
	// Dimensions, when set, asks models that support it for shorter vectors.
	Dimensions int
	// MaxRetries on 408/409/429/5xx and connection errors (0: 3; negative: none).
	MaxRetries int
}

// Embedder is an index.Embedder over /v1/embeddings: batched, retried,
// its vectors L2-normalised. Its name records the endpoint's model and its
// dimension, so a change of model re-embeds instead of mixing vectors.
type Embedder struct {
	client oai.Client
	model  string
	dims   int
	dim    int
}

var _ index.Embedder = (*Embedder)(nil)

// NewEmbedder connects to the endpoint and learns the model's dimension
// with one probe request.
func NewEmbedder(ctx context.Context, cfg EmbedConfig) (*Embedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embeddings: no model: name one (e.g. text-embedding-3-small, nomic-embed-text)")
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	opts := []option.RequestOption{option.WithAPIKey(cfg.APIKey), option.WithMaxRetries(cfg.MaxRetries), option.WithRequestTimeout(2 * time.Minute)}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	e := &Embedder{client: oai.NewClient(opts...), model: cfg.Model, dims: cfg.Dimensions}
	probe, err := e.request(ctx, []string{"dimension probe"})
	if err != nil {
		return nil, err
	}
	e.dim = len(probe[0])
	if e.dim == 0 {
		return nil, fmt.Errorf("embeddings: model %s returned an empty vector", cfg.Model)
	}
	return e, nil
}

// Name is the model, so that vectors of different models never mix.
func (e *Embedder) Name() string { return "openai:" + e.model }

// Dim is the vectors' dimension.
func (e *Embedder) Dim() int { return e.dim }

// Embed embeds texts in batches of EmbedBatch.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += EmbedBatch {
		batch := texts[start:min(start+EmbedBatch, len(texts))]
		vs, err := e.request(ctx, batch)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if len(v) != e.dim && e.dim != 0 {
				return nil, fmt.Errorf("embeddings: model %s returned %d dimensions, expected %d", e.model, len(v), e.dim)
			}
		}
		out = append(out, vs...)
	}
	return out, nil
}

// request embeds one batch, in input order.
func (e *Embedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		if len(t) > maxEmbedChars {
			t = t[:maxEmbedChars]
		}
		if strings.TrimSpace(t) == "" {
			t = " " // some servers reject empty inputs
		}
		in[i] = t
	}
	params := oai.EmbeddingNewParams{Model: oai.EmbeddingModel(e.model), Input: oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: in}}
	if e.dims > 0 {
		params.Dimensions = oai.Int(int64(e.dims))
	}
	res, err := e.client.Embeddings.New(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("embeddings (%s): %w", e.model, err)
	}
	if len(res.Data) != len(texts) {
		return nil, fmt.Errorf("embeddings (%s): %d vectors for %d inputs", e.model, len(res.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("embeddings (%s): bad vector index %d", e.model, d.Index)
		}
		v := make([]float32, len(d.Embedding))
		var norm float64
		for i, x := range d.Embedding {
			v[i] = float32(x)
			norm += x * x
		}
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for i := range v {
				v[i] *= inv
			}
		}
		out[d.Index] = v
	}
	return out, nil
}

// EmbedConfigFromEnv reads the embedding endpoint from the environment:
// AUTARCH_EMBEDDINGS_MODEL (required; unset means the built-in embedder),
// AUTARCH_EMBEDDINGS_BASE_URL (else OPENAI_BASE_URL), AUTARCH_EMBEDDINGS_API_KEY
// (else OPENAI_API_KEY) and AUTARCH_EMBEDDINGS_DIMENSIONS.
func EmbedConfigFromEnv(getenv func(string) string) (EmbedConfig, bool, error) {
	cfg := EmbedConfig{Model: getenv("AUTARCH_EMBEDDINGS_MODEL"), BaseURL: getenv("AUTARCH_EMBEDDINGS_BASE_URL"), APIKey: getenv("AUTARCH_EMBEDDINGS_API_KEY")}
	if cfg.Model == "" {
		return cfg, false, nil
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = getenv("OPENAI_BASE_URL")
	}
	if cfg.APIKey == "" {
		cfg.APIKey = getenv("OPENAI_API_KEY")
	}
	if d := getenv("AUTARCH_EMBEDDINGS_DIMENSIONS"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return cfg, false, fmt.Errorf("AUTARCH_EMBEDDINGS_DIMENSIONS=%q: give a positive number", d)
		}
		cfg.Dimensions = n
	}
	return cfg, true, nil
}

// UseEmbedderFromEnv gives ix the embedding endpoint configured in the
// environment (EmbedConfigFromEnv); without one, ix keeps its built-in
// embedder. It reports whether an endpoint is used.
func UseEmbedderFromEnv(ctx context.Context, ix *index.Index, getenv func(string) string) (bool, error) {
	cfg, ok, err := EmbedConfigFromEnv(getenv)
	if err != nil || !ok {
		return false, err
	}
	e, err := NewEmbedder(ctx, cfg)
	if err != nil {
		return false, err
	}
	ix.SetEmbedder(e)
	return true, nil
}
