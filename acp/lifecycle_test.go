package acp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// sdkClient is the client side of the Go SDK's connection: it records
// what it is sent (fakeClient) and offers no files or terminals.
type sdkClient struct{ fakeClient }

var errNotOffered = errors.New("not offered by this client")

func (*sdkClient) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}
func (*sdkClient) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}
func (*sdkClient) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}
func (*sdkClient) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}
func (*sdkClient) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}
func (*sdkClient) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// connectSDK serves a over pipes to the Go SDK's client side.
func connectSDK(t *testing.T, a *Agent) (*sdk.ClientSideConnection, *sdkClient) {
	t.Helper()
	in, out, end := servePipes(a)
	c := &sdkClient{}
	gate := &gatedReader{r: out, open: make(chan struct{})} // as Serve does
	conn := sdk.NewClientSideConnection(c, in, gate)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	close(gate.open)
	t.Cleanup(end)
	return conn, c
}

// initializeSDK serves a to the Go SDK's client side and initializes it.
func initializeSDK(t *testing.T, a *Agent) *sdk.ClientSideConnection {
	t.Helper()
	conn, _ := connectSDK(t, a)
	if _, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return conn
}

// textOf is the text of the message chunks sent to session id.
func (c *fakeClient) textOf(id sdk.SessionId) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, n := range c.received {
		if n.SessionId != id {
			continue
		}
		switch u := n.Update; {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			b.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

func (c *fakeClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.received)
}

// errText is the message of a JSON-RPC error, unquoted ("" for nil).
func errText(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re.Message
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

func prompt(id sdk.SessionId, text string) sdk.PromptRequest {
	return sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}}
}

// TestCloseResumeFork: session/close stops a running turn and forgets the
// session, whose record stays; session/resume reopens it without a replay
// and its discussion goes on with its history; session/fork copies a
// discussion into a new session whose turns leave the original's alone.
func TestCloseResumeFork(t *testing.T) {
	m, model := streamingScript(t, "testdata/lifecycle.txt")
	a := testAgentWith(t, m)
	a.cfg.CloseWait = 10 * time.Second
	conn, c := connectSDK(t, a)
	ctx := context.Background()
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if caps := init.AgentCapabilities.SessionCapabilities; caps.Close == nil || caps.Resume == nil || caps.Fork == nil {
		t.Errorf("close, resume and fork are not advertised: %+v", caps)
	}
	repo := gitRepo(t)
	created, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := created.SessionId
	if _, err := conn.Prompt(ctx, prompt(id, "What does main.go do?")); err != nil {
		t.Fatal(err)
	}

	// Close during a model call: the turn ends as cancelled, at once.
	slow := make(chan error, 1)
	var res sdk.PromptResponse
	go func() {
		var err error
		res, err = conn.Prompt(ctx, prompt(id, "Explain it slowly"))
		slow <- err
	}()
	testkit.CheckFor(t, 10*time.Second, 10*time.Millisecond, func() error {
		if model.Remaining() > 2 {
			return errors.New("the slow model call did not begin")
		}
		return nil
	})
	began := time.Now()
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatalf("session/close: %v", err)
	}
	if err := <-slow; err != nil || res.StopReason != sdk.StopReasonCancelled {
		t.Errorf("the closed session's turn: %+v %v, want cancelled", res, err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("closing took %v: it waited for the model", d)
	}
	if _, err := conn.Prompt(ctx, prompt(id, "still there?")); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("prompt to a closed session: %v", err)
	}
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("closing it twice: %v", err)
	}

	// Resume: no replay; the discussion goes on with its history.
	before := c.textOf(id)
	resumed, err := conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: id, Cwd: repo})
	if err != nil {
		t.Fatalf("session/resume: %v", err)
	}
	if resumed.Modes == nil || resumed.Modes.CurrentModeId != sdk.SessionModeId(ModeDiscuss) {
		t.Errorf("resumed modes %+v", resumed.Modes)
	}
	if after := c.textOf(id); after != before {
		t.Errorf("session/resume replayed history: %q", strings.TrimPrefix(after, before))
	}
	if _, err := conn.Prompt(ctx, prompt(id, "And then?")); err != nil {
		t.Fatal(err)
	}

	// Fork: a new session with the discussion so far.
	forked, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: id, Cwd: repo})
	if err != nil {
		t.Fatalf("session/fork: %v", err)
	}
	if forked.SessionId == id || !sessionIDPattern().MatchString(string(forked.SessionId)) {
		t.Fatalf("fork id %q", forked.SessionId)
	}
	if _, err := conn.Prompt(ctx, prompt(forked.SessionId, "Summarize")); err != nil {
		t.Fatal(err)
	}
	f, _ := a.folder(repo, "", nil)
	for _, want := range []struct {
		id    sdk.SessionId
		lines string
	}{
		{id, "What does main.go do?|main.go defines an empty main function.|And then?|Then it exits."},
		{forked.SessionId, "What does main.go do?|main.go defines an empty main function.|And then?|Then it exits.|Summarize|A summary."},
	} {
		rec, err := f.load(ctx, string(want.id))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range rec.Discussion {
			got = append(got, l.Text)
		}
		if strings.Join(got, "|") != want.lines {
			t.Errorf("session %s records %q, want %q", want.id, strings.Join(got, "|"), want.lines)
		}
	}

	// Closed, the session still loads with its history, the fork's apart.
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	mark := len(c.textOf(id))
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: id, Cwd: repo, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatalf("session/load after close: %v", err)
	}
	replayed := c.textOf(id)[mark:]
	if !strings.Contains(replayed, "main.go defines an empty main function.") || !strings.Contains(replayed, "Then it exits.") || strings.Contains(replayed, "A summary.") {
		t.Errorf("the closed session's replay: %q", replayed)
	}

	// Refusals.
	bound := a.addSession(f, record{ID: "acp-b0", Cwd: f.dir, Mode: ModeWorkflow, WorkflowID: "wf-1"})
	for _, r := range []struct {
		name string
		call func() error
		want string
	}{
		{"fork a workflow's session", func() error {
			_, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: bound.id(), Cwd: repo})
			return err
		}, "drives workflow wf-1, which only it continues"},
		{"fork an unknown session", func() error {
			_, err := conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: "acp-dead", Cwd: repo})
			return err
		}, "no session with that id was recorded"},
		{"resume in another folder", func() error {
			_, err := conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: id, Cwd: gitRepo(t)})
			return err
		}, "belongs to " + f.dir},
		{"resume a hostile id", func() error {
			_, err := conn.ResumeSession(ctx, sdk.ResumeSessionRequest{SessionId: "../../x", Cwd: repo})
			return err
		}, "unknown session"},
		{"close an unknown session", func() error {
			_, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: "acp-0"})
			return err
		}, "unknown session"},
	} {
		if err := r.call(); err == nil || !strings.Contains(errText(err), r.want) {
			t.Errorf("%s: %v, want an error saying %q", r.name, err, r.want)
		}
	}
}

// TestDiscussionThreadsApart: two discussion sessions in one folder talk to
// the discussion agent in their own threads (the scripted model refuses a
// request that mixes them); closing one ends its thread only.
func TestDiscussionThreadsApart(t *testing.T) {
	m, model := streamingScript(t, "testdata/threads.txt")
	a := testAgentWith(t, m)
	conn := initializeSDK(t, a)
	ctx := context.Background()
	repo := gitRepo(t)
	var ids []sdk.SessionId
	for range 2 {
		s, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: repo, McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.SessionId)
	}
	for _, p := range []struct {
		id   sdk.SessionId
		text string
	}{{ids[0], "Remember: the secret word is marmalade"}, {ids[1], "What is the secret word?"}} {
		if res, err := conn.Prompt(ctx, prompt(p.id, p.text)); err != nil || res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %q: %+v %v", p.text, res, err)
		}
	}
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ids[1]}); err != nil {
		t.Fatal(err)
	}
	if res, err := conn.Prompt(ctx, prompt(ids[0], "Which word was it?")); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the first session's next turn: %+v %v", res, err)
	}
	if errs := model.Errors(); len(errs) != 0 {
		t.Errorf("the threads mixed: %q", errs)
	}
	if n := model.Remaining(); n != 0 {
		t.Errorf("%d scripted steps unused", n)
	}
}
