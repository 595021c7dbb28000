// Package openai implements agent.Model over openai-go against any
// OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio, OpenRouter).
package openai

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/run"
)

// Config configures the endpoint and how calls survive a flaky network.
type Config struct {
	// BaseURL of the OpenAI-compatible API ("" for OpenAI's).
	BaseURL string
	// APIKey ("" is allowed for local servers such as Ollama).
	APIKey string
	// Stream uses server-sent events (text arrives as it is generated).
	Stream bool
	// AttemptTimeout bounds each attempt (default 5 minutes).
	AttemptTimeout time.Duration
	// FirstByteTimeout bounds the wait for the first byte of an answer
	// (default 2 minutes when streaming; AttemptTimeout otherwise, as a
	// whole answer is computed before its first byte).
	FirstByteTimeout time.Duration
	// MaxRetries after a failed attempt: a stream cut before its finish
	// chunk, a reset, a timeout, 408, 409, 429 or 5xx (0: default 5;
	// negative: none).
	MaxRetries int
	// RetryDelay is the first backoff (default 1 s), doubled at each
	// retry, with jitter, up to MaxRetryDelay (default 30 s). A longer
	// Retry-After from the provider is honoured.
	RetryDelay, MaxRetryDelay time.Duration
	// RetryBudget bounds the time of one call, retries and waits included
	// (default 10 minutes): no retry starts that would end beyond it.
	RetryBudget time.Duration
	// Gate, when not nil, is asked before every request (each attempt)
	// and told of each whole answer's tokens: a fleet worker's shared
	// rate limits and submitter budget.
	Gate Gate
}

// Environment variables that tune retries (durations as Go writes them:
// "500ms", "3s", "2m").
const (
	EnvRetries          = "AUTARCH_MODEL_RETRIES"
	EnvRetryDelay       = "AUTARCH_MODEL_RETRY_DELAY"
	EnvMaxRetryDelay    = "AUTARCH_MODEL_RETRY_MAX_DELAY"
	EnvRetryBudget      = "AUTARCH_MODEL_RETRY_BUDGET"
	EnvFirstByteTimeout = "AUTARCH_MODEL_FIRST_BYTE_TIMEOUT"
	EnvAttemptTimeout   = "AUTARCH_MODEL_TIMEOUT"
)

// WithEnv returns c with the retry settings of the environment
// (AUTARCH_MODEL_RETRIES=0 turns retries off).
func (c Config) WithEnv(getenv func(string) string) (Config, error) {
	if v := getenv(EnvRetries); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return c, fmt.Errorf("%s=%q: write a number of retries, 0 or more", EnvRetries, v)
		}
		c.MaxRetries = n
		if n == 0 {
			c.MaxRetries = -1
		}
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{EnvRetryDelay, &c.RetryDelay}, {EnvMaxRetryDelay, &c.MaxRetryDelay}, {EnvRetryBudget, &c.RetryBudget},
		{EnvFirstByteTimeout, &c.FirstByteTimeout}, {EnvAttemptTimeout, &c.AttemptTimeout}} {
		v := getenv(d.name)
		if v == "" {
			continue
		}
		t, err := time.ParseDuration(v)
		if err != nil || t <= 0 {
			return c, fmt.Errorf("%s=%q: write a positive duration such as 500ms, 3s or 2m", d.name, v)
		}
		*d.to = t
	}
	return c, nil
}

// Model is an agent.Model over the chat completions API.
type Model struct {
	client oai.Client
	cfg    Config
	// reached is set once the endpoint answered over HTTP: from then on a
	// refused connection may be a restart, and is retried.
	reached atomic.Bool
}

var _ agent.Model = (*Model)(nil)

// New makes a model client.
func New(cfg Config) *Model {
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = 5 * time.Minute
	}
	if cfg.FirstByteTimeout <= 0 {
		cfg.FirstByteTimeout = cfg.AttemptTimeout
		if cfg.Stream {
			cfg.FirstByteTimeout = min(2*time.Minute, cfg.AttemptTimeout)
		}
	}
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 5
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
	}
	if cfg.RetryDelay <= 0 {
		cfg.RetryDelay = time.Second
	}
	if cfg.MaxRetryDelay <= 0 {
		cfg.MaxRetryDelay = 30 * time.Second
	}
	if cfg.RetryBudget <= 0 {
		cfg.RetryBudget = 10 * time.Minute
	}
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0), // Complete retries whole answers itself
		option.WithRequestTimeout(cfg.AttemptTimeout),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	return &Model{client: oai.NewClient(opts...), cfg: cfg}
}

// Complete sends one chat completion request. Failed attempts that may
// succeed later (see Config.MaxRetries) are retried with exponential
// backoff and jitter, each announced through req.OnRetry; only a whole
// answer (a stream that reached its finish chunk) is returned, so no tool
// call of a partial answer ever reaches the caller. Errors are *APIError,
// *ExhaustedError or *NetworkError, whose text says what to check.
func (m *Model) Complete(ctx context.Context, req agent.Request, onText func(string)) (agent.Response, error) {
	if err := m.missingKey(); err != nil {
		return agent.Response{}, err
	}
	req.Messages = maskKey(req.Messages, m.cfg.APIKey)
	params, err := toParams(req)
	if err != nil {
		return agent.Response{}, err
	}
	if m.cfg.Stream {
		params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	}
	key := callKey()
	start := time.Now()
	for attempt := 1; ; attempt++ {
		if err := m.gateWait(ctx, req.Model); err != nil {
			return agent.Response{}, fmt.Errorf("chat completion: %w", err)
		}
		resp, f := m.attempt(ctx, params, key, attempt, onText)
		if f == nil {
			m.gateSpent(ctx, req.Model, resp.Usage)
			return resp, nil
		}
		if ctx.Err() != nil {
			return agent.Response{}, fmt.Errorf("chat completion: %w", context.Cause(ctx))
		}
		if f.api != nil && !f.api.Retryable() {
			return agent.Response{}, f.api
		}
		if err := m.unreachable(f); err != nil {
			return agent.Response{}, err
		}
		delay := m.backoff(attempt, f.retryAfter)
		elapsed := time.Since(start)
		if attempt > m.cfg.MaxRetries || elapsed+delay > m.cfg.RetryBudget {
			return agent.Response{}, m.exhausted(f, attempt, elapsed, delay)
		}
		if req.OnRetry != nil {
			req.OnRetry(agent.Retry{Cause: f.cause, Attempt: attempt, Max: m.cfg.MaxRetries, Delay: delay})
		}
		if err := run.Sleep(ctx, delay); err != nil {
			return agent.Response{}, fmt.Errorf("chat completion: %w", err)
		}
	}
}

// failure is one failed attempt.
type failure struct {
	// cause says what happened, for the retry notice.
	cause string
	// api is the provider's HTTP error, nil below HTTP.
	api        *APIError
	err        error
	endpoint   string
	retryAfter time.Duration
}

// exhausted is the error of a call whose retries ran out (or whose next
// wait would pass the budget).
func (m *Model) exhausted(f *failure, attempts int, elapsed, delay time.Duration) error {
	if f.api != nil {
		e := &ExhaustedError{Last: f.api, Attempts: attempts, Elapsed: elapsed}
		if attempts <= m.cfg.MaxRetries {
			e.Note = fmt.Sprintf("the next wait (%s) would pass the retry budget of %s", delay.Round(time.Millisecond), m.cfg.RetryBudget)
		}
		return e
	}
	return &NetworkError{Cause: f.cause, Endpoint: f.endpoint, Attempts: attempts, Elapsed: elapsed, Err: f.err}
}

// backoff is the wait before retry n (from 1): RetryDelay·2ⁿ⁻¹ capped at
// MaxRetryDelay, jittered into its upper half, and never shorter than
// the provider's Retry-After.
func (m *Model) backoff(n int, retryAfter time.Duration) time.Duration {
	d := m.cfg.RetryDelay
	for i := 1; i < n && d < m.cfg.MaxRetryDelay; i++ {
		d *= 2
	}
	d = min(d, m.cfg.MaxRetryDelay)
	d = d/2 + rand.N(d/2+1)
	return max(d, retryAfter)
}

// callKey identifies one logical call across its attempts (sent as
// Idempotency-Key, so a provider or a replaying test server can answer a
// retry as the same request).
func callKey() string {
	var b [12]byte
	crand.Read(b[:])
	return "autarch-" + hex.EncodeToString(b[:])
}

// errNoFirstByte cancels an attempt whose answer does not start in time.
var errNoFirstByte = errors.New("no first byte in time")

// attempt makes one request and reads its whole answer.
func (m *Model) attempt(ctx context.Context, params oai.ChatCompletionNewParams, key string, n int, onText func(string)) (agent.Response, *failure) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(m.cfg.FirstByteTimeout, func() { cancel(errNoFirstByte) })
	defer timer.Stop()
	p := &probe{started: func() { timer.Stop() }, reached: &m.reached}
	opts := []option.RequestOption{option.WithMiddleware(p.middleware), option.WithHeader("Idempotency-Key", key),
		option.WithHeader("X-Autarch-Attempt", strconv.Itoa(n))}
	if !m.cfg.Stream {
		c, err := m.client.Chat.Completions.New(actx, params, opts...)
		if err != nil {
			return agent.Response{}, m.classify(actx, err, p)
		}
		resp, err := fromCompletion(c)
		if err != nil {
			return agent.Response{}, &failure{cause: fmt.Sprintf("the answer (%s) %v", plural(int(p.n), "byte"), err), err: err, endpoint: p.endpoint()}
		}
		return resp, nil
	}
	stream := m.client.Chat.Completions.NewStreaming(actx, params, opts...)
	defer stream.Close()
	acc := oai.ChatCompletionAccumulator{}
	finished := false
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 {
			finished = finished || chunk.Choices[0].FinishReason != ""
			if onText != nil && chunk.Choices[0].Delta.Content != "" {
				onText(chunk.Choices[0].Delta.Content)
			}
		}
	}
	err := stream.Err()
	// A finish chunk makes the answer whole, even if the connection then
	// broke before the usage chunk; so does [DONE] from servers that send
	// no finish reason.
	if finished || err == nil && p.sawDone {
		if resp, err := fromCompletion(&acc.ChatCompletion); err == nil {
			return resp, nil
		}
	}
	if err != nil {
		return agent.Response{}, m.classify(actx, err, p)
	}
	return agent.Response{}, &failure{cause: fmt.Sprintf("model stream cut after %s (it ended without a finish chunk)", plural(int(p.n), "byte")),
		endpoint: p.endpoint()}
}

// classify turns an attempt's error into a failure.
func (m *Model) classify(actx context.Context, err error, p *probe) *failure {
	f := &failure{err: err, endpoint: p.endpoint()}
	var sdk *oai.Error
	isSDK := errors.As(err, &sdk)
	if isSDK || p.status >= 400 {
		code, body := p.status, p.body
		if code < 400 && isSDK {
			code, body = sdk.StatusCode, []byte(sdk.RawJSON())
		}
		f.api = &APIError{StatusCode: code, Message: providerMessage(body), Endpoint: f.endpoint, RetryAfter: retryAfter(p.header)}
		f.cause = "the model provider answered " + status(code)
		f.retryAfter = f.api.RetryAfter
		return f
	}
	switch {
	case errors.Is(context.Cause(actx), errNoFirstByte):
		f.cause = fmt.Sprintf("no answer within %s of sending the request", m.cfg.FirstByteTimeout)
	case errors.Is(err, context.DeadlineExceeded):
		f.cause = fmt.Sprintf("no complete answer within the attempt timeout of %s (%s received)", m.cfg.AttemptTimeout, plural(int(p.n), "byte"))
	default:
		f.cause = describe(err, p.n)
	}
	return f
}

// retryAfter reads Retry-After-Ms or Retry-After (seconds, fractional
// allowed, or an HTTP date); 0 when absent or unreadable.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 && ms < 1e9 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && s < 1e6 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// probe watches one attempt at the HTTP level: the URL, the status and
// headers, an error answer's body, and how many bytes of a good answer
// arrived (the first one stops the first-byte timer).
type probe struct {
	url     *url.URL
	status  int
	header  http.Header
	body    []byte
	n       int64
	tail    []byte
	sawDone bool
	started func()
	// reached, when set, is told that the endpoint answered.
	reached *atomic.Bool
}

func (p *probe) endpoint() string { return endpoint(p.url) }

func (p *probe) middleware(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	p.url = r.URL
	resp, err := next(r)
	if err != nil || resp == nil {
		return resp, err
	}
	p.status, p.header = resp.StatusCode, resp.Header
	if p.reached != nil {
		p.reached.Store(true)
	}
	if resp.StatusCode >= 400 {
		p.started()
		p.body, _ = io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(p.body))
		return resp, nil
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, p: p}
	return resp, nil
}

// countingBody counts an answer's bytes and notices the stream's [DONE].
type countingBody struct {
	io.ReadCloser
	p *probe
}

func (c *countingBody) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	if n > 0 {
		if c.p.n == 0 {
			c.p.started()
		}
		c.p.n += int64(n)
		c.p.tail = append(c.p.tail, b[:n]...)
		if bytes.Contains(c.p.tail, []byte("data: [DONE]")) {
			c.p.sawDone = true
		}
		if len(c.p.tail) > 16 {
			c.p.tail = c.p.tail[len(c.p.tail)-16:]
		}
	}
	return n, err
}

func toParams(req agent.Request) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(req.Model)}
	for _, m := range req.Messages {
		switch m.Role {
		case agent.RoleSystem:
			p.Messages = append(p.Messages, oai.SystemMessage(m.Content))
		case agent.RoleUser:
			p.Messages = append(p.Messages, oai.UserMessage(m.Content))
		case agent.RoleTool:
			p.Messages = append(p.Messages, oai.ToolMessage(m.Content, m.ToolCallID))
		case agent.RoleAssistant:
			msg := oai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				msg.Content.OfString = oai.String(m.Content)
			}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Args)},
					},
				})
			}
			p.Messages = append(p.Messages, oai.ChatCompletionMessageParamUnion{OfAssistant: &msg})
		default:
			return p, fmt.Errorf("message role %q is not one of system, user, assistant, tool", m.Role)
		}
	}
	for _, t := range req.Tools {
		var params shared.FunctionParameters
		if err := json.Unmarshal(t.Function.Parameters, &params); err != nil {
			return p, fmt.Errorf("tool %s schema: %w", t.Function.Name, err)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Function.Name,
			Description: oai.String(t.Function.Description),
			Parameters:  params,
		}))
	}
	return p, nil
}

// fromCompletion reads the first choice. Tool calling is decided by the
// presence of tool calls, not the finish reason (Ollama ends with "stop").
func fromCompletion(c *oai.ChatCompletion) (agent.Response, error) {
	if len(c.Choices) == 0 {
		return agent.Response{}, fmt.Errorf("chat completion has no choices")
	}
	ch := c.Choices[0]
	resp := agent.Response{
		Message:      agent.Message{Role: agent.RoleAssistant, Content: ch.Message.Content},
		FinishReason: ch.FinishReason,
		Usage:        agent.Usage{PromptTokens: int(c.Usage.PromptTokens), CompletionTokens: int(c.Usage.CompletionTokens)},
	}
	for i, tc := range ch.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i+1)
		}
		args := json.RawMessage(tc.Function.Arguments)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, agent.ToolCall{ID: id, Name: tc.Function.Name, Args: args})
	}
	return resp, nil
}

// maskKey is msgs with the model's own API key (as it is, reversed or
// base64'd) replaced by [blocked]: the key set in the editor is in no
// environment the egress gate (tools.Egress, applied by agent.New) reads.
func maskKey(msgs []agent.Message, key string) []agent.Message {
	if len(key) < 8 {
		return msgs
	}
	r := []byte(key)
	slices.Reverse(r)
	forms := []string{key, string(r), strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(key)), "=")}
	var out []agent.Message
	for i, m := range msgs {
		changed := false
		for _, f := range forms {
			if strings.Contains(m.Content, f) {
				m.Content, changed = strings.ReplaceAll(m.Content, f, "[blocked]"), true
			}
		}
		if len(m.ToolCalls) > 0 {
			calls := slices.Clone(m.ToolCalls)
			for j, c := range calls {
				for _, f := range forms {
					if strings.Contains(string(c.Args), f) {
						calls[j].Args, changed = []byte(strings.ReplaceAll(string(c.Args), f, "[blocked]")), true
						c = calls[j]
					}
				}
			}
			if changed {
				m.ToolCalls = calls
			}
		}
		if changed {
			if out == nil {
				out = slices.Clone(msgs)
			}
			out[i] = m
		}
	}
	if out == nil {
		return msgs
	}
	return out
}
