package scripted

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Fault is what the flaky proxy does to one chat completion.
type Fault string

// Faults a real network brings.
const (
	// Pass forwards the request and its answer untouched.
	Pass Fault = "pass"
	// Cut forwards the request, sends the first half of the answer (whole
	// server-sent events) and ends the response cleanly: a stream without
	// its finish chunk.
	Cut Fault = "cut"
	// Drop forwards the request, sends the first half of the answer, then
	// breaks the connection.
	Drop Fault = "drop"
	// Reset resets the connection before any answer; the model never sees
	// the request.
	Reset Fault = "reset"
	// Status500 answers 500 Internal Server Error.
	Status500 Fault = "500"
	// Status400 answers 400 Bad Request: a refusal, not worth retrying.
	Status400 Fault = "400"
	// Status429 answers 429 Too Many Requests with Retry-After.
	Status429 Fault = "429"
	// Slow sends nothing until the client gives up.
	Slow Fault = "slow"
)

// ParseFaults reads a comma-separated pattern such as "pass,pass,cut".
func ParseFaults(s string) ([]Fault, error) {
	var out []Fault
	for _, f := range strings.Split(s, ",") {
		switch v := Fault(strings.TrimSpace(f)); v {
		case Pass, Cut, Drop, Reset, Status400, Status500, Status429, Slow:
			out = append(out, v)
		default:
			return nil, fmt.Errorf("fault %q: use pass, cut, drop, reset, 400, 500, 429 or slow", f)
		}
	}
	return out, nil
}

// Flaky is a proxy in front of a model server (Next) that injects faults
// into chat completions: the i-th request (from 0) gets Pattern[i mod
// len(Pattern)]. Other requests (embeddings, models) pass.
type Flaky struct {
	Next    http.Handler
	Pattern []Fault
	// RetryAfter is what a 429 asks for (default 1 s); sent as
	// Retry-After in seconds, fractions allowed.
	RetryAfter time.Duration

	mu       sync.Mutex // guards Pattern once serving, n and injected
	n        int
	injected map[Fault]int
}

// SetPattern replaces the pattern; the next request gets its first fault.
func (f *Flaky) SetPattern(p ...Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Pattern, f.n = p, 0
}

// Injected counts the faults injected so far, by kind.
func (f *Flaky) Injected() map[Fault]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[Fault]int{}
	for k, v := range f.injected {
		out[k] = v
	}
	return out
}

func (f *Flaky) next() Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	fault := Pass
	if len(f.Pattern) > 0 {
		fault = f.Pattern[f.n%len(f.Pattern)]
	}
	f.n++
	if fault != Pass {
		if f.injected == nil {
			f.injected = map[Fault]int{}
		}
		f.injected[fault]++
	}
	return fault
}

func (f *Flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		f.Next.ServeHTTP(w, r)
		return
	}
	switch f.next() {
	case Pass:
		f.Next.ServeHTTP(w, r)
	case Cut:
		f.half(w, r, false)
	case Drop:
		f.half(w, r, true)
	case Reset:
		io.Copy(io.Discard, r.Body)
		reset(w)
	case Status400:
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"message":"flaky proxy: the model 'scripted' does not exist","type":"invalid_request_error"}}`)
	case Status500:
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":{"message":"flaky proxy: injected internal error","type":"server_error"}}`)
	case Status429:
		io.Copy(io.Discard, r.Body)
		after := f.RetryAfter
		if after <= 0 {
			after = time.Second
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", fmt.Sprintf("%g", after.Seconds()))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"flaky proxy: rate limit reached","type":"rate_limit_error"}}`)
	case Slow:
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}
}

// half forwards the request and sends the first half of the answer; then
// it ends the response (cleanly, or by breaking the connection).
func (f *Flaky) half(w http.ResponseWriter, r *http.Request, abort bool) {
	rec := httptest.NewRecorder()
	f.Next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	cut := len(body) / 2
	if i := bytes.LastIndex(body[:cut], []byte("\n\n")); i > 0 && !abort {
		cut = i + 2 // whole events: the stream just stops
	}
	for k, v := range rec.Header() {
		if k != "Content-Length" {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(rec.Code)
	w.Write(body[:cut])
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	if abort {
		panic(http.ErrAbortHandler) // the server breaks the connection mid-body
	}
}

// reset closes the client's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
