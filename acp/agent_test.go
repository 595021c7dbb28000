package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"github.com/autarch-dev/autarch/app"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/agent"
	"github.com/autarch-dev/autarch/agent/workflow"
	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// gitRepo makes a real git repository with one commit.
func gitRepo(t *testing.T) string {
	t.Helper()
	return testkit.NewRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
}

// testAgent is an Agent whose folders open real workflow sessions (no
// model: nothing here runs an agent).
func testAgent(t *testing.T) *Agent {
	t.Helper()
	return testAgentWith(t, noModel{})
}

// testAgentWith is an Agent whose folders' agents call model, their text
// streamed to the client as verb_acp wires it.
func testAgentWith(t *testing.T, model agent.Model) *Agent {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return New(Config{Version: "test", Log: log, CloseWait: time.Second, Tools: testCatalog(t),
		Session: func(folder string, servers *MCPServers, ui editor.Client, document func(string) (string, bool)) *app.Session {
			return app.New(app.Config{Editor: ui, Document: document, Events: Events(ui), Deltas: Events(ui), Log: log,
				Wire: func(ctx context.Context, p *workflow.Project, cfg *workflow.Config) error {
					cfg.Model = model
					cfg.Deltas = Deltas(ui)
					return nil
				},
				Search: func(folder string) workflow.CodeSearch {
					return codesearch.New(codesearch.Config{Root: folder, Editor: ui, Log: log})
				}})
		}})
}

// noModel is a model that is never asked: these tests run no agent.
type noModel struct{}

func (noModel) Complete(context.Context, agent.Request, func(string)) (agent.Response, error) {
	return agent.Response{}, errors.New("no model in this test")
}

// rawPeer speaks raw JSON-RPC lines to an Agent served over pipes.
type rawPeer struct {
	t   *testing.T
	w   io.Writer
	r   *bufio.Scanner
	end func()
}

// servePipes serves a over pipes: the client writes to in and reads out;
// end stops the agent and waits for it.
func servePipes(a *Agent) (in io.WriteCloser, out io.Reader, end func()) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		a.Serve(ctx, inR, outW)
		outW.Close()
		close(done)
	}()
	return inW, outR, func() {
		cancel()
		inW.Close()
		<-done
	}
}

func serve(t *testing.T, a *Agent) *rawPeer {
	t.Helper()
	in, out, end := servePipes(a)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	p := &rawPeer{t: t, w: in, r: sc, end: end}
	t.Cleanup(p.end)
	return p
}

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// call sends one line and returns the reply with its id (notifications
// in between are skipped).
func (p *rawPeer) call(id int, line string) rpcReply {
	p.t.Helper()
	r, _ := p.exchange(id, line)
	return r
}

// exchange sends one line and returns the reply with its id and the
// session/update notifications' params that came before it; permission
// requests are cancelled (the tests decide nothing).
func (p *rawPeer) exchange(id int, line string) (rpcReply, []json.RawMessage) {
	p.t.Helper()
	return p.exchangeAnswering(id, line, func(permissionRequest) string { return "" })
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestBadInput(t *testing.T) {
	a := testAgent(t)
	p := serve(t, a)
	repo := gitRepo(t)
	notRepo := t.TempDir()
	if r := p.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	r := p.call(2, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+quote(repo)+`,"mcpServers":[]}}`)
	if r.Error != nil {
		t.Fatalf("session/new: %+v", r.Error)
	}
	var created sdk.NewSessionResponse
	json.Unmarshal(r.Result, &created)
	for i, c := range []struct {
		name, line string
		code       int
		words      string
	}{
		{"prompt to an unknown session", `{"method":"session/prompt","params":{"sessionId":"acp-00","prompt":[{"type":"text","text":"hi"}]}}`, -32602, "unknown session \"acp-00\": create one with session/new"},
		{"malformed params", `{"method":"session/prompt","params":{"sessionId":5,"prompt":"hi"}}`, -32602, "Invalid params"},
		{"params not an object", `{"method":"session/new","params":[1,2]}`, -32602, "Invalid params"},
		{"missing cwd", `{"method":"session/new","params":{"mcpServers":[]}}`, -32602, "cwd is required"},
		{"relative cwd", `{"method":"session/new","params":{"cwd":"src","mcpServers":[]}}`, -32602, "not an absolute path"},
		{"cwd not a git repository", `{"method":"session/new","params":{"cwd":` + quote(notRepo) + `,"mcpServers":[]}}`, -32602, "git repository"},
		{"hostile session id", `{"method":"session/load","params":{"sessionId":"../../../etc/passwd","cwd":` + quote(repo) + `,"mcpServers":[]}}`, -32602, "unknown session"},
		{"unrecorded session id", `{"method":"session/load","params":{"sessionId":"acp-0123","cwd":` + quote(repo) + `,"mcpServers":[]}}`, -32602, "no session with that id was recorded"},
		{"unknown mode", `{"method":"session/set_mode","params":{"sessionId":"` + string(created.SessionId) + `","modeId":"yolo"}}`, -32602, "use discuss, workflow, job or job-genius"},
		{"image-only prompt", `{"method":"session/prompt","params":{"sessionId":"` + string(created.SessionId) + `","prompt":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}`, -32602, "no text"},
		{"unknown method", `{"method":"session/fly","params":{}}`, -32601, "Method not found"},
		{"set_mode on an unknown session", `{"method":"session/set_mode","params":{"sessionId":"acp-11","modeId":"workflow"}}`, -32602, "unknown session"},
	} {
		id := 10 + i
		line := `{"jsonrpc":"2.0","id":` + jsonInt(id) + `,` + strings.TrimPrefix(c.line, "{")
		r := p.call(id, line)
		if r.Error == nil {
			t.Errorf("%s: no error, result %s", c.name, r.Result)
			continue
		}
		if r.Error.Code != c.code || !strings.Contains(r.Error.Message+string(r.Error.Data), c.words) {
			t.Errorf("%s: error %d %q %s, want %d mentioning %q", c.name, r.Error.Code, r.Error.Message, r.Error.Data, c.code, c.words)
		}
	}
	// The session is recorded beside the store, outside the user's tree.
	rec := filepath.Join(repo, ".git", "autarch", "acp", string(created.SessionId)+".json")
	if _, err := os.Stat(rec); err != nil {
		t.Errorf("session record: %v", err)
	}
	if out, _ := exec.Command("git", "-C", repo, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("the user's tree changed: %s", out)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestPromptWhileTurnRuns(t *testing.T) {
	a := testAgent(t)
	s := &session{a: a, rec: record{ID: "acp-1", Mode: ModeDiscuss}, calls: newCallTracker(testCatalog(t))}
	first, err := s.begin(func() {})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.prompt(context.Background(), "and another thing")
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32600 || !strings.Contains(re.Message, "still running a turn: wait for its answer, or send session/cancel") {
		t.Fatalf("second prompt: %v", err)
	}
	if err := s.setMode(context.Background(), ModeWorkflow); err == nil || !strings.Contains(err.Error(), "running a turn") {
		t.Errorf("mode change during a turn: %v", err)
	}
	// The first turn is untouched by the refused prompt.
	select {
	case <-first.done:
		t.Fatal("the refused prompt ended the running turn")
	default:
	}
	s.end(first)
	if s.running() {
		t.Error("the turn still runs after it ended")
	}
}

func TestModeStaysWithItsWork(t *testing.T) {
	a := testAgent(t)
	s := &session{a: a, rec: record{ID: "acp-2", Mode: ModeWorkflow, WorkflowID: "wf-1"}, calls: newCallTracker(testCatalog(t))}
	err := s.setMode(context.Background(), ModeDiscuss)
	if err == nil || !strings.Contains(err.Error(), "drives workflow wf-1: its mode stays workflow") {
		t.Errorf("mode change of a bound session: %v", err)
	}
}

func TestInitialize(t *testing.T) {
	for _, c := range []struct {
		missing bool
		methods int
	}{{false, 0}, {true, 1}} {
		a := New(Config{Version: "1.2.3", APIKeyMissing: func() bool { return c.missing }})
		res, err := a.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
		if err != nil {
			t.Fatal(err)
		}
		caps := res.AgentCapabilities
		if !caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext || caps.SessionCapabilities.List == nil || !caps.McpCapabilities.Http || res.AgentInfo.Version != "1.2.3" {
			t.Errorf("capabilities %+v", res)
		}
		if len(res.AuthMethods) != c.methods {
			t.Errorf("key missing %v: auth methods %+v", c.missing, res.AuthMethods)
		}
		_, err = a.Authenticate(context.Background(), sdk.AuthenticateRequest{MethodId: authAPIKey})
		var re *sdk.RequestError
		switch {
		case !c.missing && err != nil:
			t.Errorf("authenticate without a key needed: %v", err)
		case c.missing && (!errors.As(err, &re) || re.Code != -32000 || !strings.Contains(re.Error(), "OPENAI_API_KEY")):
			t.Errorf("authenticate with the key missing: %v", err)
		}
	}
}
