package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/scripted"
)

const twoSteps = `two answers with tool calls
-- 01.json --
{"text": "Reading the file before I change anything in it, as one should.", "tool_calls": [{"name": "read_file", "args": {"path": "calc.go", "reason": "see Add"}}]}
-- 02.json --
{"tool_calls": [{"name": "grep", "args": {"pattern": "Add", "reason": "find callers"}}]}
`

// flaky serves the two-step script behind a flaky proxy.
func flaky(t *testing.T, pattern ...scripted.Fault) (string, *scripted.Flaky) {
	t.Helper()
	script, err := scripted.Parse([]byte(twoSteps))
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.NewServer(script)
	proxy := &scripted.Flaky{Next: srv, Pattern: pattern, RetryAfter: 30 * time.Millisecond}
	hs := httptest.NewServer(proxy)
	t.Cleanup(func() {
		hs.Close()
		for _, e := range srv.Errors() {
			t.Errorf("scripted model: %s", e)
		}
	})
	return hs.URL + "/v1", proxy
}

// fast retries quickly, so tests wait milliseconds, not seconds.
func fast(url string, stream bool) Config {
	return Config{BaseURL: url, APIKey: "sk-test", Stream: stream, MaxRetries: 3, RetryDelay: time.Millisecond,
		MaxRetryDelay: 5 * time.Millisecond, FirstByteTimeout: 300 * time.Millisecond}
}

// Every fault of a real network is retried; the caller gets each whole
// answer exactly once, in order, and hears of each retry.
func TestFaultsAreRetriedAsWholeAnswers(t *testing.T) {
	for _, tc := range []struct {
		fault  scripted.Fault
		stream bool
		cause  string
	}{
		{scripted.Cut, true, "model stream cut after"},
		{scripted.Cut, false, "bytes"},
		{scripted.Drop, true, "model stream cut after"},
		{scripted.Reset, true, "connection reset"},
		{scripted.Status500, true, "answered 500 Internal Server Error"},
		{scripted.Status500, false, "answered 500 Internal Server Error"},
		{scripted.Status429, true, "answered 429 Too Many Requests"},
		{scripted.Slow, true, "no answer within 300ms"},
	} {
		name := string(tc.fault)
		if !tc.stream {
			name += "-whole"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			url, proxy := flaky(t, tc.fault, scripted.Pass)
			m := New(fast(url, tc.stream))
			var retries []agent.Retry
			req := request()
			req.OnRetry = func(r agent.Retry) { retries = append(retries, r) }
			var calls []string
			for range 2 {
				var text strings.Builder
				resp, err := m.Complete(context.Background(), req, func(s string) { text.WriteString(s) })
				if err != nil {
					t.Fatalf("complete: %v", err)
				}
				for _, c := range resp.Message.ToolCalls {
					calls = append(calls, c.Name+" "+string(c.Args))
				}
			}
			want := []string{`read_file {"path": "calc.go", "reason": "see Add"}`, `grep {"pattern": "Add", "reason": "find callers"}`}
			if strings.Join(calls, "\n") != strings.Join(want, "\n") {
				t.Errorf("tool calls = %q, want each once: %q", calls, want)
			}
			// net/http itself replays a request with an Idempotency-Key
			// once when a reused connection is reset before answering.
			if n := len(retries); n != 2 && !(tc.fault == scripted.Reset && n == 1) || proxy.Injected()[tc.fault] != 2 {
				t.Fatalf("retries = %+v, injected %v; want one retry per call", retries, proxy.Injected())
			}
			r := retries[0]
			if !strings.Contains(r.Cause, tc.cause) || r.Attempt != 1 || r.Max != 3 {
				t.Errorf("retry = %+v (%s), want cause %q, 1/3", r, r, tc.cause)
			}
			if tc.fault == scripted.Status429 && r.Delay < 30*time.Millisecond {
				t.Errorf("retry delay %s ignores Retry-After 30ms", r.Delay)
			}
			if !strings.Contains(r.String(), "retrying 1/3 in") {
				t.Errorf("notice %q", r)
			}
		})
	}
}

// When retries run out, the error says what happened on the wire and what
// to check.
func TestExhaustedRetriesNameTheNetworkFault(t *testing.T) {
	for _, tc := range []struct {
		fault scripted.Fault
		want  []string
	}{
		{scripted.Cut, []string{"model stream cut after", "without a finish chunk", "after 3 attempts", "Check the network path", "resuming the workflow continues"}},
		{scripted.Reset, []string{"connection reset after 0 bytes", "after 3 attempts"}},
		{scripted.Status500, []string{"answered 500 Internal Server Error: flaky proxy: injected internal error", "gave up after 3 attempts", "try again later"}},
		{scripted.Status429, []string{"429 Too Many Requests: flaky proxy: rate limit reached", "gave up after 3 attempts", "rate limit"}},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			t.Parallel()
			url, _ := flaky(t, tc.fault)
			cfg := fast(url, true)
			cfg.MaxRetries = 2
			_, err := New(cfg).Complete(context.Background(), request(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// A Retry-After beyond the retry budget ends the call at once, saying so.
func TestRetryAfterBeyondBudget(t *testing.T) {
	url, proxy := flaky(t, scripted.Status429)
	proxy.RetryAfter = time.Hour
	cfg := fast(url, true)
	cfg.RetryBudget = time.Minute
	_, err := New(cfg).Complete(context.Background(), request(), nil)
	var ex *ExhaustedError
	if !errors.As(err, &ex) || ex.Attempts != 1 || !strings.Contains(err.Error(), "would pass the retry budget of 1m0s") {
		t.Errorf("err = %v", err)
	}
}

// The provider's own message and the next step are in the error's text
// (openai-go's Error() leaves the body out).
func TestProviderMessageAndNextStep(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   []string
	}{
		{401, `{"error":{"message":"Incorrect API key provided: sk-test. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`,
			[]string{"401 Unauthorized: Incorrect API key provided: sk-test.", "Check the API key (OPENAI_API_KEY"}},
		{404, `{"error":{"message":"The model 'gpt-5x' does not exist"}}`,
			[]string{"404 Not Found: The model 'gpt-5x' does not exist", "Check the model name (--model or AUTARCH_MODEL", "autarch.model.baseUrl"}},
		{400, `{"error":{"message":"scripted model: step 01: tool \"x\" was not offered"}}`,
			[]string{"400 Bad Request: scripted model: step 01", "Check the model name"}},
		{400, `<html><body><h1>400 Bad Request</h1>  nginx</body></html>`,
			[]string{"400 Bad Request: <html><body><h1>400 Bad Request</h1> nginx</body></html>"}},
		{403, `{"detail": "Forbidden for this project"}`, []string{"403 Forbidden: Forbidden for this project", "may use this model"}},
	} {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			for _, stream := range []bool{false, true} {
				_, err := New(Config{BaseURL: srv.URL + "/v1?api-key=secret", Stream: stream, MaxRetries: 3}).Complete(context.Background(), request(), nil)
				var api *APIError
				if !errors.As(err, &api) || api.StatusCode != tc.status {
					t.Fatalf("err = %v, want an APIError %d at once", err, tc.status)
				}
				for _, w := range append(tc.want, srv.URL+"/v1)") {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("stream=%v: error lacks %q:\n%v", stream, w, err)
					}
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the URL's query: %v", err)
				}
			}
		})
	}
}

func TestWithEnv(t *testing.T) {
	env := map[string]string{EnvRetries: "0", EnvRetryDelay: "250ms", EnvRetryBudget: "2m", EnvFirstByteTimeout: "45s"}
	cfg, err := Config{}.WithEnv(func(k string) string { return env[k] })
	if err != nil || cfg.MaxRetries != -1 || cfg.RetryDelay != 250*time.Millisecond || cfg.RetryBudget != 2*time.Minute || cfg.FirstByteTimeout != 45*time.Second {
		t.Errorf("cfg = %+v, %v", cfg, err)
	}
	for k, v := range map[string]string{EnvRetries: "-1", EnvRetryDelay: "3", EnvAttemptTimeout: "soon"} {
		if _, err := (Config{}).WithEnv(func(n string) string { return map[string]string{k: v}[n] }); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: err = %v", k, v, err)
		}
	}
}

func TestBackoffGrowsWithJitterAndHonoursRetryAfter(t *testing.T) {
	m := New(Config{RetryDelay: 100 * time.Millisecond, MaxRetryDelay: time.Second})
	for _, tc := range []struct {
		n          int
		retryAfter time.Duration
		lo, hi     time.Duration
	}{
		{1, 0, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 0, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 0, 400 * time.Millisecond, 800 * time.Millisecond},
		{9, 0, 500 * time.Millisecond, time.Second},
		{1, 3 * time.Second, 3 * time.Second, 3 * time.Second},
	} {
		if d := m.backoff(tc.n, tc.retryAfter); d < tc.lo || d > tc.hi {
			t.Errorf("backoff(%d, %s) = %s, want in [%s, %s]", tc.n, tc.retryAfter, d, tc.lo, tc.hi)
		}
	}
}
