package scripted

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const script = `A two-step script.
-- 01-first.json --
{"expect": {"tools": ["read_file"], "lastUserContains": "hello"}, "text": "hi", "tool_calls": [{"name": "read_file", "args": {"path": "a"}}]}
-- 02-second.json --
{"expect": {"lastToolResultContains": "content of a"}, "text": "done"}
-- notes.txt --
not a step
`

func post(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String()
}

func req(tools []string, msgs ...map[string]any) map[string]any {
	var ts []any
	for _, n := range tools {
		ts = append(ts, map[string]any{"type": "function", "function": map[string]any{"name": n}})
	}
	return map[string]any{"model": "m", "messages": msgs, "tools": ts}
}

func TestParse(t *testing.T) {
	s, err := Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 2 || s.Steps[0].Name != "01-first.json" || s.Comment != "A two-step script." {
		t.Errorf("script = %+v", s)
	}
	if _, err := Parse([]byte("-- 01.json --\n{\"nope\": 1}\n")); err == nil || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := Parse([]byte("no steps")); err == nil {
		t.Error("empty script accepted")
	}
}

func TestServerReplaysAndFailsLoudly(t *testing.T) {
	s, _ := Parse([]byte(script))
	srv := NewServer(s)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	url := hs.URL + "/v1"
	code, body := post(t, url, req([]string{"read_file"}, map[string]any{"role": "user", "content": "hello there"}))
	if code != 200 || !strings.Contains(body, `"name":"read_file"`) || !strings.Contains(body, `"finish_reason":"tool_calls"`) {
		t.Fatalf("step 1: %d %s", code, body)
	}
	code, body = post(t, url, req(nil, map[string]any{"role": "tool", "content": "something else", "tool_call_id": "call_1"}))
	if code != 400 || !strings.Contains(body, `last tool result \"something else\" does not contain \"content of a\"`) {
		t.Errorf("mismatch: %d %s", code, body)
	}
	if errs := srv.Errors(); len(errs) != 1 {
		t.Errorf("errors = %v", errs)
	}
	code, _ = post(t, url, req(nil))
	if code != 400 || !strings.Contains(srv.Errors()[1], "the script has only 2 steps") {
		t.Errorf("extra request: %d %v", code, srv.Errors())
	}
}

func TestStreamingAndEmbeddings(t *testing.T) {
	s, _ := Parse([]byte(script))
	hs := httptest.NewServer(NewServer(s))
	defer hs.Close()
	r := req([]string{"read_file"}, map[string]any{"role": "user", "content": "hello"})
	r["stream"] = true
	b, _ := json.Marshal(r)
	resp, err := http.Post(hs.URL+"/v1/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	resp.Body.Close()
	out := buf.String()
	if !strings.Contains(out, "data: [DONE]") || strings.Count(out, `"tool_calls":[`) != 2 || !strings.Contains(out, `"usage"`) {
		t.Errorf("stream = %s", out)
	}
	b, _ = json.Marshal(map[string]any{"model": "e", "input": []string{"func main", "func main"}})
	resp, err = http.Post(hs.URL+"/v1/embeddings", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var emb struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&emb)
	resp.Body.Close()
	if len(emb.Data) != 2 || len(emb.Data[0].Embedding) != 64 || emb.Data[0].Embedding[0] != emb.Data[1].Embedding[0] {
		t.Errorf("embeddings = %+v", emb)
	}
}
