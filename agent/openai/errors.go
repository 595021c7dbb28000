package openai

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// APIError is an HTTP error answer of the provider. Unlike openai-go's
// error, whose Error() leaves the body out, its text carries the status,
// the provider's own message and what to check, so every surface that
// shows err.Error() (CLI, log, editor) tells the user what to do.
type APIError struct {
	StatusCode int
	// Message is the provider's explanation (its error.message, or the
	// start of a body that is not JSON).
	Message string
	// Endpoint is the base URL called, without query or credentials.
	Endpoint string
	// RetryAfter is the wait the provider asked for (429, 503), if any.
	RetryAfter time.Duration
}

func (e *APIError) Error() string { return e.text("") }

// text writes the error with extra after the endpoint, before the hint.
func (e *APIError) text(extra string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the model provider answered %s", status(e.StatusCode))
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Endpoint != "" {
		fmt.Fprintf(&b, " (%s)", e.Endpoint)
	}
	b.WriteString(extra)
	if hint := statusHint(e.StatusCode); hint != "" {
		b.WriteString(". " + hint)
	}
	return b.String()
}

// Retryable reports whether the same request may succeed later.
func (e *APIError) Retryable() bool {
	switch e.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return true
	}
	return e.StatusCode >= 500
}

func status(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprintf("HTTP %d", code)
}

// Where each setting lives, for the CLI and the editor.
const (
	keyHint   = "the API key (OPENAI_API_KEY, or \"Autarch: Set API Key\" in VS Code)"
	modelHint = "the model name (--model or AUTARCH_MODEL, or the autarch.model.name setting)"
	urlHint   = "the base URL (--base-url or OPENAI_BASE_URL, or the autarch.model.baseUrl setting)"
)

// statusHint says what to check for an error status.
func statusHint(code int) string {
	switch {
	case code == http.StatusUnauthorized:
		return "Check " + keyHint + ", then try again"
	case code == http.StatusForbidden:
		return "Check that " + keyHint + " may use this model and endpoint, then try again"
	case code == http.StatusNotFound:
		return "Check " + modelHint + " and " + urlHint + ": the endpoint must serve /chat/completions"
	case code == http.StatusBadRequest || code == http.StatusUnprocessableEntity:
		return "Check " + modelHint + " and that " + urlHint + " points to an OpenAI-compatible API; the provider's message says what it refused"
	case code == http.StatusTooManyRequests:
		return "The provider's rate limit or quota is reached: wait, or check the plan and billing of the API key, then resume the workflow"
	case code >= 500 || code == http.StatusRequestTimeout || code == http.StatusConflict:
		return "The provider is failing or overloaded: try again later (resuming the workflow continues where it stopped)"
	}
	return "Check " + keyHint + ", " + modelHint + " and " + urlHint
}

// providerMessage extracts the provider's explanation from an error body:
// {"error": {"message": …}}, {"error": "…"}, {"message": …}, {"detail": …},
// or the start of a text body.
func providerMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return clip(inner.Message)
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return clip(s)
		case v.Message != "":
			return clip(v.Message)
		case v.Detail != nil:
			b, _ := json.Marshal(v.Detail)
			if s, ok := v.Detail.(string); ok {
				return clip(s)
			}
			return clip(string(b))
		}
	}
	return clip(strings.Join(strings.Fields(string(body)), " "))
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 400 {
		return string(r[:400]) + "…"
	}
	return s
}

// endpoint is a URL fit to show: scheme, host and path, no credentials,
// query or fragment.
func endpoint(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/chat/completions")}
	return c.String()
}

// NetworkError is a model call that failed below HTTP, or whose answer
// never arrived whole, after every retry.
type NetworkError struct {
	// Cause says what happened on the last attempt, e.g. "model stream cut
	// after 812 bytes (no finish chunk)".
	Cause    string
	Endpoint string
	// Attempts made and the time they took.
	Attempts int
	Elapsed  time.Duration
	// Err is the transport's error, if any.
	Err error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("%s from %s, after %s in %s. Check the network path to the provider (proxy, VPN, firewall) and %s; resuming the workflow continues from its last completed step",
		e.Cause, e.Endpoint, plural(e.Attempts, "attempt"), e.Elapsed.Round(time.Millisecond), urlHint)
}

func (e *NetworkError) Unwrap() error { return e.Err }

// ExhaustedError is a retryable HTTP error that lasted through every retry.
type ExhaustedError struct {
	Last     *APIError
	Attempts int
	Elapsed  time.Duration
	// Note says why retrying stopped early, if it did.
	Note string
}

func (e *ExhaustedError) Error() string {
	extra := fmt.Sprintf("; gave up after %s in %s", plural(e.Attempts, "attempt"), e.Elapsed.Round(time.Millisecond))
	if e.Note != "" {
		extra += ": " + e.Note
	}
	return e.Last.text(extra)
}

func (e *ExhaustedError) Unwrap() error { return e.Last }

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// describe names a transport error for people.
func describe(err error, bytes int64) string {
	switch {
	case errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("connection reset after %s", plural(int(bytes), "byte"))
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (is the model server running?)"
	case errors.Is(err, syscall.EPIPE):
		return "connection closed while sending the request"
	case bytes == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)):
		return "connection closed before any answer"
	case bytes > 0:
		return fmt.Sprintf("model stream cut after %s (%v)", plural(int(bytes), "byte"), err)
	}
	return fmt.Sprintf("model call failed before any answer (%v)", err)
}
