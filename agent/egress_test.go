package agent_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// recorder keeps every request body the model server receives.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	body []string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.body = append(r.body, string(b))
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	r.next.ServeHTTP(w, req)
}

func rev(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// TestModelReceivesNoSecret: during a run whose tools return the
// workspace's and the environment's secret values (a doc quoting the .env
// token, a file holding .env reversed and base64'd, a real sandboxed
// shell printing the token reversed, the model's own call quoting it), the
// scripted model receives none of them in any request, in any form.
func TestModelReceivesNoSecret(t *testing.T) {
	const token, envTok = "Xk9fQ2mZ8pL4wR7tVb3n", "envTok-8Hq2Mx7Lp4Wz9"
	t.Setenv("ACME_SERVICE_TOKEN", envTok)
	dotenv := "API_SECRET=" + token + "\n"
	dir := testkit.NewRepo(t, map[string]string{
		".env":          dotenv,
		"docs/setup.md": "# Setup\n\nUse " + token + " for staging; CI uses " + envTok + ".\n",
		"dump.txt":      base64.StdEncoding.EncodeToString([]byte(rev(dotenv))) + "\n",
		".gitignore":    ".env\n",
	})
	script, err := scripted.Parse([]byte(`A run whose tools return secrets.
-- 01.json --
{"tool_calls": [{"name": "read_file", "args": {"path": "docs/setup.md", "reason": "r"}}]}
-- 02.json --
{"expect": {"lastToolResultContains": "[blocked]"}, "tool_calls": [{"name": "read_file", "args": {"path": "dump.txt", "reason": "r"}}]}
-- 03.json --
{"expect": {"lastToolResultContains": "[blocked]"}, "tool_calls": [{"name": "grep", "args": {"pattern": "` + token + `", "reason": "the model quotes the token"}}]}
-- 04.json --
{"tool_calls": [{"name": "shell", "args": {"command": "rev docs/setup.md; xxd -p docs/setup.md", "reason": "r"}}]}
-- 05.json --
{"expect": {"lastToolResultContains": "[blocked]"}, "text": "done"}
`))
	if err != nil {
		t.Fatal(err)
	}
	srv := scripted.NewServer(script)
	rec := &recorder{next: srv}
	hs := httptest.NewServer(rec)
	defer hs.Close()
	engine, sess := roleTools(t, "pulsing", dir, false, nil)
	a, err := agent.New(agent.Config{Role: "pulsing", Model: openai.New(openai.Config{BaseURL: hs.URL + "/v1", APIKey: "test", MaxRetries: -1}),
		ModelName: "scripted", Engine: engine, Session: sess, MaxIterations: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunTurn(context.Background(), "Set up staging."); err != nil {
		t.Fatal(err)
	}
	for _, e := range srv.Errors() {
		t.Errorf("scripted model: %s", e)
	}
	if n := srv.Remaining(); n > 0 {
		t.Errorf("%d steps were never requested", n)
	}
	if len(rec.body) != 5 {
		t.Fatalf("the model got %d requests, want 5", len(rec.body))
	}
	for i, body := range rec.body {
		flat := strings.NewReplacer(`\n`, "", `\r`, "").Replace(body)
		for _, secret := range []string{token, envTok} {
			for _, form := range []string{secret, rev(secret), hex.EncodeToString([]byte(secret))} {
				if strings.Contains(flat, form) {
					t.Errorf("request %d carries a secret (%.6s…): %s", i+1, form, body)
				}
			}
		}
		if strings.Contains(flat, base64.StdEncoding.EncodeToString([]byte(rev(dotenv)))[:24]) {
			t.Errorf("request %d carries the reversed, base64'd .env: %s", i+1, body)
		}
	}
}
