package openai

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
)

// TestAPIKeyNeverSent: a request whose messages or tool-call arguments
// quote the model's own API key (as it is, reversed, base64'd) reaches the
// endpoint without it; the key goes only in the Authorization header.
func TestAPIKeyNeverSent(t *testing.T) {
	const key = "sk-test-Zq0xLm4Rt8Wv2Ky6Np3S"
	r := []byte(key)
	slices.Reverse(r)
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	var mu sync.Mutex
	var body string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		mu.Lock()
		body = string(b)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)
	}))
	defer hs.Close()
	m := New(Config{BaseURL: hs.URL + "/v1", APIKey: key, MaxRetries: -1})
	msgs := []agent.Message{{Role: agent.RoleUser, Content: "my key is " + key + ", reversed " + string(r) + ", encoded " + b64},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c", Name: "shell", Args: []byte(`{"command": "echo ` + key + `"}`)}}},
		{Role: agent.RoleTool, ToolCallID: "c", Content: "done"}}
	if _, err := m.Complete(context.Background(), agent.Request{Model: "m", Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, form := range []string{key, string(r), strings.TrimRight(b64, "=")} {
		if strings.Contains(body, form) {
			t.Errorf("the request carries the API key (%.8s…): %s", form, body)
		}
	}
	if !strings.Contains(msgs[0].Content, key) {
		t.Errorf("the caller's messages were changed")
	}
}
