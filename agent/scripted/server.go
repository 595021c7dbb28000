package scripted

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// ChatRequest is the part of a chat completion request the server checks
// (and test routers in front of it read).
type ChatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string `json:"name"`
			Parameters struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// Server replays a script over HTTP.
type Server struct {
	script *Script
	mu     sync.Mutex
	next   int
	errs   []string
	// Requests counts chat completion requests served.
	requests int
	// byKey remembers the step each Idempotency-Key was answered with: a
	// retried request gets the same answer, as from a real model.
	byKey map[string]int
	// bodies are the chat requests' bodies as received, in order.
	bodies [][]byte
}

// Bodies returns the body of every chat completion request received, as
// sent (what left Autarch for the model), in order.
func (s *Server) Bodies() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// NewServer serves script.
func NewServer(script *Script) *Server { return &Server{script: script} }

// Errors lists the mismatches seen so far.
func (s *Server) Errors() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.errs...)
}

// Remaining is how many steps were not used.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script.Steps) - s.next
}

func (s *Server) fail(w http.ResponseWriter, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.errs = append(s.errs, msg)
	s.mu.Unlock()
	http.Error(w, `{"error":{"message":`+jsonString("scripted model: "+msg)+`}}`, http.StatusBadRequest)
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// ServeHTTP answers /v1/chat/completions, /v1/embeddings and /v1/models.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.chat(w, r)
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		s.embeddings(w, r)
	case strings.HasSuffix(r.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"scripted","object":"model"}]}`)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.fail(w, "reading the request body: %v", err)
		return
	}
	var req ChatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, "bad request body: %v", err)
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.requests++
	key := r.Header.Get("Idempotency-Key")
	if i, ok := s.byKey[key]; ok && key != "" {
		step := s.script.Steps[i]
		s.mu.Unlock()
		s.answer(w, r, req, step)
		return
	}
	if s.next >= len(s.script.Steps) {
		s.mu.Unlock()
		s.fail(w, "request %d arrived but the script has only %d steps", s.requests, len(s.script.Steps))
		return
	}
	step := s.script.Steps[s.next]
	if key != "" {
		if s.byKey == nil {
			s.byKey = map[string]int{}
		}
		s.byKey[key] = s.next
	}
	s.next++
	s.mu.Unlock()
	if msg := check(step, req); msg != "" {
		s.fail(w, "step %s: %s", step.Name, msg)
		return
	}
	s.answer(w, r, req, step)
}

// answer sends a step as the response to req.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, req ChatRequest, step Step) {
	if step.DelayMS > 0 && !req.Stream {
		select {
		case <-time.After(time.Duration(step.DelayMS) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
	}
	if req.Stream {
		s.stream(w, r, step)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(completion(step))
}

// check compares a request with a step's expectations.
func check(step Step, req ChatRequest) string {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Function.Name] = true
	}
	for _, t := range step.Expect.Tools {
		if !offered[t] {
			return fmt.Sprintf("tool %q was not offered (offered: %v)", t, keys(offered))
		}
	}
	if step.Expect.ToolsExact && len(offered) != len(step.Expect.Tools) {
		return fmt.Sprintf("offered tools %v, want exactly %v", keys(offered), step.Expect.Tools)
	}
	for _, t := range step.Expect.NotTools {
		if offered[t] {
			return fmt.Sprintf("tool %q was offered but must not be", t)
		}
	}
	if msg := checkParams(step, req); msg != "" {
		return msg
	}
	if msg := checkMessages(step, req); msg != "" {
		return msg
	}
	last := func(role string) (string, bool) {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == role {
				return MessageText(req.Messages[i].Content), true
			}
		}
		return "", false
	}
	if want := step.Expect.LastToolResultContains; want != "" {
		got, ok := last("tool")
		if !ok || !strings.Contains(got, want) {
			return fmt.Sprintf("last tool result %q does not contain %q", clip(got), want)
		}
	}
	if want := step.Expect.LastUserContains; want != "" {
		got, _ := last("user")
		if !strings.Contains(got, want) {
			return fmt.Sprintf("last user message %q does not contain %q", clip(got), want)
		}
	}
	if want := step.Expect.SystemContains; want != "" {
		var sys strings.Builder
		for _, m := range req.Messages {
			if m.Role == "system" {
				sys.WriteString(MessageText(m.Content))
			}
		}
		if !strings.Contains(sys.String(), want) {
			return fmt.Sprintf("system messages do not contain %q", want)
		}
	}
	if bad := step.Expect.NoMessageContains; bad != "" {
		for i, m := range req.Messages {
			if strings.Contains(MessageText(m.Content), bad) {
				return fmt.Sprintf("message %d (%s) contains %q", i, m.Role, bad)
			}
		}
	}
	return ""
}

// checkParams compares the offered tools' parameters with ToolParams and
// NotToolParams.
func checkParams(step Step, req ChatRequest) string {
	params := map[string]map[string]json.RawMessage{}
	for _, t := range req.Tools {
		params[t.Function.Name] = t.Function.Parameters.Properties
	}
	for tool, names := range step.Expect.ToolParams {
		props, ok := params[tool]
		if !ok {
			return fmt.Sprintf("tool %q was not offered", tool)
		}
		for _, n := range names {
			if _, ok := props[n]; !ok {
				return fmt.Sprintf("tool %q was offered without parameter %q", tool, n)
			}
		}
	}
	for tool, names := range step.Expect.NotToolParams {
		for _, n := range names {
			if _, ok := params[tool][n]; ok {
				return fmt.Sprintf("tool %q was offered with parameter %q, which must not be offered yet", tool, n)
			}
		}
	}
	return ""
}

// checkMessages looks for each of MessagesContain in the request's messages.
func checkMessages(step Step, req ChatRequest) string {
	for _, want := range step.Expect.MessagesContain {
		found := false
		for _, m := range req.Messages {
			if strings.Contains(MessageText(m.Content), want) {
				found = true
				break
			}
		}
		if !found {
			return fmt.Sprintf("no message contains %q", want)
		}
	}
	return ""
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// MessageText reads a chat message's content, which is a string or an
// array of text parts.
func MessageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

type toolCallJSON struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func toolCalls(step Step) []toolCallJSON {
	var out []toolCallJSON
	for i, c := range step.ToolCalls {
		tc := toolCallJSON{Index: i, ID: fmt.Sprintf("call_%d", i+1), Type: "function"}
		tc.Function.Name = c.Name
		args := string(c.Args)
		if args == "" {
			args = "{}"
		}
		tc.Function.Arguments = args
		out = append(out, tc)
	}
	return out
}

func finishReason(step Step) string {
	switch {
	case step.FinishReason != "":
		return step.FinishReason
	case len(step.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func completion(step Step) map[string]any {
	msg := map[string]any{"role": "assistant", "content": step.Text}
	if tc := toolCalls(step); len(tc) > 0 {
		msg["tool_calls"] = tc
	}
	return map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": time.Now().Unix(), "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(step)}},
		"usage":   usage(step),
	}
}

func usage(step Step) map[string]int {
	return map[string]int{"prompt_tokens": step.Usage.PromptTokens, "completion_tokens": step.Usage.CompletionTokens,
		"total_tokens": step.Usage.PromptTokens + step.Usage.CompletionTokens}
}

// stream sends the step as server-sent events: text in small pieces, then
// each tool call with its arguments split in two chunks, then usage.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, step Step) {
	w.Header().Set("Content-Type", "text/event-stream")
	flusher, _ := w.(http.Flusher)
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		if step.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(step.DelayMS) * time.Millisecond):
			case <-r.Context().Done():
				return false
			}
		}
		return true
	}
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "scripted",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	for _, piece := range splitText(step.Text, 16) {
		if !send(chunk(map[string]any{"content": piece}, nil)) {
			return
		}
	}
	for _, tc := range toolCalls(step) {
		args := tc.Function.Arguments
		half := len(args) / 2
		first := tc
		first.Function.Arguments = args[:half]
		if !send(chunk(map[string]any{"tool_calls": []any{first}}, nil)) {
			return
		}
		rest := toolCallJSON{Index: tc.Index}
		rest.Function.Arguments = args[half:]
		if !send(chunk(map[string]any{"tool_calls": []any{rest}}, nil)) {
			return
		}
	}
	if !send(chunk(map[string]any{}, finishReason(step))) {
		return
	}
	final := map[string]any{"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": "scripted", "choices": []any{}, "usage": usage(step)}
	send(final)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func splitText(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// embeddings answers with deterministic unit vectors derived from the text.
func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input json.RawMessage `json:"input"`
		Model string          `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.fail(w, "bad embeddings body: %v", err)
		return
	}
	var inputs []string
	if json.Unmarshal(req.Input, &inputs) != nil {
		var one string
		json.Unmarshal(req.Input, &one)
		inputs = []string{one}
	}
	var data []any
	for i, in := range inputs {
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": hashVector(in, 64)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model, "usage": map[string]int{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
}

func hashVector(text string, dim int) []float64 {
	v := make([]float64, dim)
	for _, word := range strings.Fields(strings.ToLower(text)) {
		h := sha256.Sum256([]byte(word))
		i := binary.LittleEndian.Uint32(h[:4]) % uint32(dim)
		sign := 1.0
		if h[4]&1 == 1 {
			sign = -1
		}
		v[i] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}

// TB is the part of testing.TB the test helper needs.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Cleanup(func())
}

// Start serves script on a local test server and fails t, at cleanup, on
// any mismatch or unused step. It returns the base URL (…/v1).
func Start(t TB, script *Script) (string, *Server) {
	t.Helper()
	s := NewServer(script)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		hs.Close()
		for _, e := range s.Errors() {
			t.Errorf("scripted model: %s", e)
		}
		if n := s.Remaining(); n > 0 {
			t.Errorf("scripted model: %d step(s) of the script were never requested", n)
		}
	})
	return hs.URL + "/v1", s
}
