package acp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/openai"
	"github.com/autarch-dev/autarch/agent/scripted"
)

// TestWorkflowTextStreams: a workflow agent's text reaches the client as
// agent message chunks while the model streams it, each message once; a
// question asked in prose, which the engine sends back to the agent, is
// marked as not for the user.
func TestWorkflowTextStreams(t *testing.T) {
	_, updates := promptWorkflow(t, "testdata/stream.txt", "Add a Sub function")
	const message = "I will put Sub in main.go, next to main, and it will subtract its second argument from its first.\n\nThat keeps the change small."
	got, pieces := messageChunks(t, updates, message)
	if pieces < 5 {
		t.Errorf("%d chunks carry pieces of the agent's message, want it streamed in several:\n%s", pieces, got)
	}
	if n := strings.Count(got, message); n != 1 {
		t.Errorf("the agent's message arrives %d times, want once:\n%s", n, got)
	}
	q, note := strings.Index(got, "Should Sub live in main.go?"), strings.Index(got, withheldNote)
	if q < 0 || note < q {
		t.Errorf("the question asked in prose is not streamed and then marked as sent back (question at %d, note at %d):\n%s", q, note, got)
	}
	if !strings.HasSuffix(got, message+"\n\n\n\nReply to the agent's message above in your next message.") {
		t.Errorf("the turn does not end with what the workflow waits for:\n%s", got)
	}
}

// promptWorkflow opens a workflow session over a new repository, its
// model streaming the script at path, and sends prompt: the reply and the
// updates before it.
func promptWorkflow(t *testing.T, path, prompt string) (rpcReply, []json.RawMessage) {
	t.Helper()
	p := serve(t, testAgentWith(t, streamingModel(t, path)))
	id := newSession(t, p, gitRepo(t), ModeWorkflow)
	r, updates := p.exchange(4, promptRequest(4, id, prompt))
	if r.Error != nil {
		t.Fatalf("session/prompt: %+v", r.Error)
	}
	return r, updates
}

// streamingModel is a streaming client of the scripted model serving
// the script at path.
func streamingModel(t *testing.T, path string) agent.Model {
	t.Helper()
	m, _ := streamingScript(t, path)
	return m
}

// streamingScript is streamingModel and the scripted model's server.
func streamingScript(t *testing.T, path string) (agent.Model, *scripted.Server) {
	t.Helper()
	url, srv := scripted.Start(t, readScript(t, path))
	return openai.New(openai.Config{BaseURL: url, APIKey: "test", MaxRetries: -1, Stream: true}), srv
}

// promptRequest is session/prompt's request numbered n: text, to
// session id.
func promptRequest(n int, id, text string) string {
	return `{"jsonrpc":"2.0","id":` + jsonInt(n) + `,"method":"session/prompt","params":{"sessionId":` + quote(id) + `,"prompt":[{"type":"text","text":` + quote(text) + `}]}}`
}

// readScript reads the scripted model's script at path.
func readScript(t *testing.T, path string) *scripted.Script {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	script, err := scripted.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// newSession initializes p and opens a session over repo in mode.
func newSession(t *testing.T, p *rawPeer, repo string, mode Mode) string {
	t.Helper()
	id := openSession(t, p, repo)
	if r := p.call(3, `{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":`+quote(id)+`,"modeId":`+quote(string(mode))+`}}`); r.Error != nil {
		t.Fatalf("session/set_mode: %+v", r.Error)
	}
	return id
}

// openSession initializes p (request 1) and opens a session over repo
// (request 2) in its first mode; it returns the session's id.
func openSession(t *testing.T, p *rawPeer, repo string) string {
	t.Helper()
	p.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r := p.call(2, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+quote(repo)+`,"mcpServers":[]}}`)
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &created) != nil {
		t.Fatalf("session/new: %+v %s", r.Error, r.Result)
	}
	return created.SessionID
}

// messageChunks is the text of the agent message chunks among updates,
// and how many of them carry a piece (not the whole) of message.
func messageChunks(t *testing.T, updates []json.RawMessage, message string) (string, int) {
	t.Helper()
	var text strings.Builder
	pieces := 0
	for _, raw := range updates {
		var n struct {
			Update struct {
				SessionUpdate string          `json:"sessionUpdate"`
				Content       json.RawMessage `json:"content"`
			} `json:"update"`
		}
		var chunk struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		if n.Update.SessionUpdate != "agent_message_chunk" {
			continue
		}
		if err := json.Unmarshal(n.Update.Content, &chunk); err != nil {
			t.Fatal(err)
		}
		if c := chunk.Text; c != "" && strings.Contains(message, c) && len(c) < len(message) {
			pieces++
		}
		text.WriteString(chunk.Text)
	}
	return text.String(), pieces
}

func TestModes(t *testing.T) {
	for _, c := range []struct {
		mode    Mode
		known   bool
		jobMode string
	}{
		{ModeDiscuss, true, ""},
		{ModeWorkflow, true, ""},
		{ModeJob, true, "mechanic"},
		{ModeJobGenius, true, "genius"},
		{"genius", false, ""},
		{"JOB", false, ""},
		{"", false, ""},
	} {
		got, isJob := c.mode.jobMode()
		if c.mode.known() != c.known || got != c.jobMode || isJob != (c.jobMode != "") {
			t.Errorf("mode %q: known %v, job mode %q (%v); want %v, %q", c.mode, c.mode.known(), got, isJob, c.known, c.jobMode)
		}
	}
}

// TestJobGenius: the job-genius mode starts a job in genius mode, and the
// job agent's text streams as agent message chunks.
func TestJobGenius(t *testing.T) {
	p := serve(t, testAgentWith(t, streamingModel(t, "testdata/job-genius.txt")))
	id := newSession(t, p, gitRepo(t), ModeJobGenius)
	r, updates := p.exchange(4, promptRequest(4, id, "Make main print hello"))
	if r.Error != nil {
		t.Fatalf("session/prompt: %+v", r.Error)
	}
	const message = "I will read main.go first, then change it in the smallest way that works."
	got, pieces := messageChunks(t, updates, message)
	if pieces < 3 || strings.Count(got, message) != 1 {
		t.Errorf("%d chunks carry pieces of the job agent's text, want it once, in several:\n%s", pieces, got)
	}
	if !strings.Contains(got, "(id ") || !strings.Contains(got, "genius mode") {
		t.Errorf("the job is not said to run in genius mode:\n%s", got)
	}
}

// TestWorkflowUsage: a model call's typed usage reaches the client as a
// usage update (the call's tokens out of the window) and the turn's usage.
func TestWorkflowUsage(t *testing.T) {
	r, updates := promptWorkflow(t, "testdata/usage.txt", "Add a Sub function")
	var used []int
	for _, raw := range updates {
		var n struct {
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Used          int    `json:"used"`
				Size          int    `json:"size"`
			} `json:"update"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		if n.Update.SessionUpdate == "usage_update" {
			used = append(used, n.Update.Used)
		}
	}
	if len(used) != 1 || used[0] != 129 {
		t.Errorf("usage updates used %v, want one of 129 tokens", used)
	}
	var res struct {
		Usage struct {
			InputTokens  int `json:"inputTokens"`
			OutputTokens int `json:"outputTokens"`
			TotalTokens  int `json:"totalTokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens != 120 || res.Usage.OutputTokens != 9 || res.Usage.TotalTokens != 129 {
		t.Errorf("turn usage %+v, want 120 in, 9 out, 129 in all: %s", res.Usage, r.Result)
	}
}
