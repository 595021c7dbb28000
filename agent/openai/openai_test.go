package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/tools"
)

// recorded serves a recorded response body and captures the request.
func recorded(t *testing.T, file, contentType string) (string, *map[string]any) {
	t.Helper()
	body, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path = %s", r.URL.Path)
		}
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("authorization = %q", r.Header.Get("Authorization"))
		}
		raw, _ := io.ReadAll(r.Body)
		json.Unmarshal(raw, &got)
		w.Header().Set("Content-Type", contentType)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", &got
}

func request() agent.Request {
	reg, _ := tools.ForRole("pulsing", tools.Deps{})
	return agent.Request{
		Model: "gpt-4o",
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "You are a test."},
			{Role: agent.RoleUser, Content: "Fix Add."},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_0", Name: "grep", Args: json.RawMessage(`{"pattern":"Add","reason":"r"}`)}}},
			{Role: agent.RoleTool, ToolCallID: "call_0", Content: `{"results":[]}`},
		},
		Tools: reg.Schemas([]string{"read_file", "grep"}),
	}
}

func TestRecordedCompletion(t *testing.T) {
	url, got := recorded(t, "testdata/completion.json", "application/json")
	m := New(Config{BaseURL: url, APIKey: "sk-test", MaxRetries: -1})
	resp, err := m.Complete(context.Background(), request(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Let me look at the file first." || len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("response = %+v", resp)
	}
	c := resp.Message.ToolCalls[0]
	if c.ID != "call_KXmWGzEn7aPmhvvxFHqHN7Cq" || c.Name != "read_file" || string(c.Args) != `{"path":"calc.go","reason":"See the current Add"}` {
		t.Errorf("tool call = %+v", c)
	}
	if resp.Usage != (agent.Usage{PromptTokens: 1117, CompletionTokens: 46}) {
		t.Errorf("usage = %+v", resp.Usage)
	}
	// The request carries the conversation and the tools in OpenAI's shape.
	req, _ := json.Marshal(*got)
	for _, want := range []string{`"model":"gpt-4o"`, `"role":"tool","tool_call_id":"call_0"`, `"tool_calls":[{"function":{"arguments":"{\"pattern\":\"Add\",\"reason\":\"r\"}","name":"grep"},"id":"call_0","type":"function"}]`, `"name":"read_file"`, `"required":["reason","path"]`} {
		if !strings.Contains(string(req), want) {
			t.Errorf("request lacks %s:\n%s", want, req)
		}
	}
	if strings.Contains(string(req), `"stream"`) {
		t.Error("non-streaming request asked for a stream")
	}
}

func TestRecordedStreamWithToolCallsAndStopFinish(t *testing.T) {
	url, got := recorded(t, "testdata/stream-ollama.sse", "text/event-stream")
	m := New(Config{BaseURL: url, APIKey: "sk-test", Stream: true, MaxRetries: -1})
	var text strings.Builder
	resp, err := m.Complete(context.Background(), request(), func(s string) { text.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != "Reading both." || resp.Message.Content != "Reading both." {
		t.Errorf("streamed text %q, content %q", text.String(), resp.Message.Content)
	}
	if resp.FinishReason != "stop" || len(resp.Message.ToolCalls) != 2 {
		t.Fatalf("finish %q with %d tool calls: tool calls must count even when the stream ends with stop", resp.FinishReason, len(resp.Message.ToolCalls))
	}
	if c := resp.Message.ToolCalls[0]; c.Name != "read_file" || string(c.Args) != `{"path":"a.go","reason":"r"}` {
		t.Errorf("accumulated call 0 = %+v", c)
	}
	if c := resp.Message.ToolCalls[1]; c.ID != "call_b2" || c.Name != "grep" {
		t.Errorf("call 1 = %+v", c)
	}
	if resp.Usage.PromptTokens != 321 || resp.Usage.CompletionTokens != 28 {
		t.Errorf("usage = %+v", resp.Usage)
	}
	if (*got)["stream"] != true {
		t.Errorf("stream not requested: %v", *got)
	}
}

func TestServerErrorIsReported(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model not found"}}`, http.StatusNotFound)
	}))
	defer srv.Close()
	_, err := New(Config{BaseURL: srv.URL, MaxRetries: -1}).Complete(context.Background(), request(), nil)
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("err = %v", err)
	}
}
