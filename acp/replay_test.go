package acp

import (
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent/openai"
)

// TestReloadedReplyShownOnce: a workflow that waits for a reply to its
// agent's message replays that message once on session/load (from the
// history), then says what it waits for without repeating it.
func TestReloadedReplyShownOnce(t *testing.T) {
	url := startScript(t, "testdata/stream.txt")
	model := openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1, Stream: true})
	repo := gitRepo(t)
	first := serve(t, testAgentWith(t, model))
	id := newSession(t, first, repo, ModeWorkflow)
	if r := first.call(4, `{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":`+quote(id)+`,"prompt":[{"type":"text","text":"Add a Sub function"}]}}`); r.Error != nil {
		t.Fatalf("session/prompt: %+v", r.Error)
	}
	const message = "I will put Sub in main.go, next to main, and it will subtract its second argument from its first.\n\nThat keeps the change small."
	load := `{"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":` + quote(id) + `,"cwd":` + quote(repo) + `,"mcpServers":[]}}`
	check := func(what string, p *rawPeer) {
		t.Helper()
		r, updates := p.exchange(5, load)
		if r.Error != nil {
			t.Fatalf("%s: session/load: %+v", what, r.Error)
		}
		got, _ := messageChunks(t, updates, message)
		if n := strings.Count(got, message); n != 1 {
			t.Errorf("%s: the agent's message is replayed %d times, want once:\n%s", what, n, got)
		}
		if !strings.HasSuffix(got, "Reply to the agent's message above in your next message.") {
			t.Errorf("%s: the replay does not end with what the workflow waits for:\n%s", what, got)
		}
	}
	check("same process", first)
	first.end()
	second := serve(t, testAgentWith(t, model))
	second.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	check("after a restart", second)
}
