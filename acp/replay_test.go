package acp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestReloadedReplyShownOnce: a workflow that waits for a reply to its
// agent's message replays that message once on session/load (from the
// history), then says what it waits for without repeating it.
func TestReloadedReplyShownOnce(t *testing.T) {
	model := streamingModel(t, "testdata/stream.txt")
	repo := gitRepo(t)
	first := serve(t, testAgentWith(t, model))
	id := newSession(t, first, repo, ModeWorkflow)
	if r := first.call(4, promptRequest(4, id, "Add a Sub function")); r.Error != nil {
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

// TestReplayEngineNotes: session/load replays as the user's only what the
// user wrote (the task, a reply); the engine's inputs to its agent (stage
// instructions, the rule sent back when the agent asked in prose) never
// arrive as user messages: the sent-back question is marked as live, the
// rest is not shown.
func TestReplayEngineNotes(t *testing.T) {
	repo := gitRepo(t)
	p := serve(t, testAgentWith(t, streamingModel(t, "testdata/replay-notes.txt")))
	id := newSession(t, p, repo, ModeWorkflow)
	const task, reply = "Add a Sub function", "Yes, main.go is right."
	for i, text := range []string{task, reply} {
		n := 4 + i
		if r := p.call(n, promptRequest(n, id, text)); r.Error != nil {
			t.Fatalf("session/prompt %q: %+v", text, r.Error)
		}
	}
	r, updates := p.exchange(6, `{"jsonrpc":"2.0","id":6,"method":"session/load","params":{"sessionId":`+quote(id)+`,"cwd":`+quote(repo)+`,"mcpServers":[]}}`)
	if r.Error != nil {
		t.Fatalf("session/load: %+v", r.Error)
	}
	var user []string
	var agent strings.Builder
	for _, raw := range updates {
		var n struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		switch n.Update.SessionUpdate {
		case "user_message_chunk":
			user = append(user, strings.TrimSpace(n.Update.Content.Text))
		case "agent_message_chunk":
			agent.WriteString(n.Update.Content.Text)
		}
	}
	if want := []string{task, reply}; !slices.Equal(user, want) {
		t.Errorf("replayed as the user's: %q, want only what the user wrote: %q", user, want)
	}
	got := agent.String()
	q, note, answer := strings.Index(got, "Should Sub live in main.go?"), strings.Index(got, withheldNote), strings.Index(got, "Noted: Sub goes in main.go.")
	if q < 0 || note < q || answer < note {
		t.Errorf("the question asked in prose is not replayed and then marked as sent back, before the later messages (question at %d, note at %d, answer at %d):\n%s", q, note, answer, got)
	}
	if strings.Count(got, withheldNote) != 1 || strings.Contains(got, "never in prose") {
		t.Errorf("the engine's rule is replayed (or the mark more than once):\n%s", got)
	}
}
