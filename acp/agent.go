// Package acp is Autarch's Agent Client Protocol surface
// (github.com/coder/acp-go-sdk): Zed, JetBrains IDEs and Neovim plugins
// (CodeCompanion, avante) drive Autarch over stdio. Like package server it
// is a transport: an ACP session is a folder's app.Session in one of
// three modes — discuss (the read-only discussion agent), workflow (the
// phased workflow) and job (one coding-team job) — and each request is a
// call on the domain. The domain's events, approvals and questions reach
// the client as session/update and session/request_permission (client.go,
// updates.go). A session is recorded next to the workflow store (record.go),
// so session/load replays it from the store after a restart (replay.go).
package acp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/autarch-dev/autarch/app"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// Mode is what an ACP session's prompts drive.
type Mode string

// The session modes.
const (
	ModeDiscuss  Mode = "discuss"
	ModeWorkflow Mode = "workflow"
	ModeJob      Mode = "job"
	// ModeJobGenius runs the job in genius mode: no patch limits and a
	// larger budget, for open-ended or cross-cutting work.
	ModeJobGenius Mode = "job-genius"
)

// jobMode is the job mode (job.Task.Mode) a session mode's jobs run in;
// ok is false for the modes that run no job.
func (m Mode) jobMode() (mode string, ok bool) {
	switch m {
	case ModeJob:
		return "mechanic", true
	case ModeJobGenius:
		return "genius", true
	}
	return "", false
}

// known reports whether m is one of the modes offered.
func (m Mode) known() bool {
	for _, o := range modes {
		if string(o.Id) == string(m) {
			return true
		}
	}
	return false
}

// modes are the modes offered to clients, the default first.
var modes = []sdk.SessionMode{
	{Id: sdk.SessionModeId(ModeDiscuss), Name: "Discuss", Description: sdk.Ptr("Read-only chat about the code: the discussion agent reads and searches, never writes.")},
	{Id: sdk.SessionModeId(ModeWorkflow), Name: "Workflow", Description: sdk.Ptr("The phased workflow: scope, research and plan cards to approve, pulses in a git worktree, a review; your tree is untouched until you apply it.")},
	{Id: sdk.SessionModeId(ModeJob), Name: "Job", Description: sdk.Ptr("One coding-team agent on its own ai/… branch in its own worktree, ending in a commit with green tests and lint; mechanic mode: small patches and a smaller budget.")},
	{Id: sdk.SessionModeId(ModeJobGenius), Name: "Job (genius)", Description: sdk.Ptr("A job in genius mode: no per-patch file and line limits and a larger budget (2M tokens, 200 model calls), for open-ended or cross-cutting work.")},
}

// Config configures an Agent.
type Config struct {
	// Version is Autarch's version (agentInfo).
	Version string
	// Session makes the application session of a folder (cmd/autarch
	// wires it like the LSP server's, its events to Events(ui)); ui
	// reaches the ACP client, document reads
	// the client's open buffers, servers are the MCP servers the clients
	// pass for the folder's sessions (they join the agents' tools like the
	// user's own servers; the set grows as later sessions pass more, and
	// shrinks as the last session that passed a server closes). The wiring
	// stops the servers it starts through servers.OnRelease and OnClose.
	Session func(folder string, servers *MCPServers, ui editor.Client, document func(path string) (string, bool)) *app.Session
	// APIKeyMissing reports whether the model endpoint needs an API key
	// the environment does not give (nil: none is needed).
	APIKeyMissing func() bool
	// CloseWait bounds how long closing waits for runs to record how they
	// ended (default 5s).
	CloseWait time.Duration
	Log       *slog.Logger
	// Tools are the tools whose calls sessions show, by name: their
	// traits give a call's kind and the files it touches (cmd/autarch
	// gives every built-in tool; a tool not here shows as "other").
	Tools *tools.Registry
}

// peer is the client side of the connection (*sdk.AgentSideConnection).
type peer interface {
	SessionUpdate(ctx context.Context, n sdk.SessionNotification) error
	RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error)
}

// Agent is the ACP agent of one connection.
type Agent struct {
	cfg Config
	log *slog.Logger

	peerOnce sync.Once
	ready    chan struct{}
	peer     peer

	mu       sync.Mutex
	caps     sdk.ClientCapabilities
	folders  map[string]*folder
	sessions map[sdk.SessionId]*session
	closed   bool
}

var (
	_ sdk.Agent                  = (*Agent)(nil)
	_ sdk.AgentLoader            = (*Agent)(nil)
	_ sdk.ExtensionMethodHandler = (*Agent)(nil)
	// session/fork is routed to agents with this method.
	_ interface {
		UnstableForkSession(context.Context, sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error)
	} = (*Agent)(nil)
)

// New makes an Agent; Serve connects it.
func New(cfg Config) *Agent {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.CloseWait <= 0 {
		cfg.CloseWait = 5 * time.Second
	}
	return &Agent{cfg: cfg, log: cfg.Log, ready: make(chan struct{}), folders: map[string]*folder{}, sessions: map[sdk.SessionId]*session{}}
}

// Serve speaks ACP (newline-delimited JSON-RPC) on in/out until the client
// disconnects or ctx ends, then stops the running turns (a workflow keeps
// its work as a recovery checkpoint) and closes the folders.
func (a *Agent) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	// The SDK starts reading in NewAgentSideConnection, and its reader
	// uses the logger: hold the first read until the logger is set.
	// An over-long line would end the connection in the SDK's reader:
	// lineLimiter answers it with an error instead.
	gate := &gatedReader{r: newLineLimiter(in, maxMessageBytes, a.log), open: make(chan struct{})}
	conn := sdk.NewAgentSideConnection(a, out, gate)
	conn.SetLogger(a.log)
	close(gate.open)
	a.connect(conn)
	select {
	case <-conn.Done():
	case <-ctx.Done():
	}
	a.Close()
	return nil
}

// connect sets the client side; handlers wait for it.
func (a *Agent) connect(p peer) {
	a.peerOnce.Do(func() {
		a.peer = p
		close(a.ready)
	})
}

func (a *Agent) client() peer {
	<-a.ready
	return a.peer
}

// Close stops every running turn and closes the folders' sessions.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closed = true
	sessions := make([]*session, 0, len(a.sessions))
	for _, s := range a.sessions {
		sessions = append(sessions, s)
	}
	folders := make([]*folder, 0, len(a.folders))
	for _, f := range a.folders {
		folders = append(folders, f)
	}
	a.mu.Unlock()
	for _, s := range sessions {
		s.stop(context.Background(), "autarch acp was closed by the client")
	}
	for _, s := range sessions {
		s.waitTurn(a.cfg.CloseWait)
	}
	var wg sync.WaitGroup
	for _, f := range folders {
		wg.Go(func() {
			f.app.Close(a.cfg.CloseWait)
			f.mcp.close() // after the runs that used the servers ended
		})
	}
	wg.Wait()
}

// Initialize answers the client's capabilities with Autarch's.
func (a *Agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	res := sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "autarch", Title: sdk.Ptr("Autarch"), Version: a.cfg.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}, Close: &sdk.SessionCloseCapabilities{},
				Resume: &sdk.SessionResumeCapabilities{}, Fork: &sdk.SessionForkCapabilities{}},
		},
		AuthMethods: []sdk.AuthMethod{},
	}
	if a.cfg.APIKeyMissing != nil && a.cfg.APIKeyMissing() {
		res.AuthMethods = []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: authAPIKey, Name: "OpenAI-compatible API key",
			Description: sdk.Ptr("Set OPENAI_API_KEY in the environment autarch acp starts with (Zed: agent_servers.<name>.env), then restart the agent.")}}}
	}
	return res, nil
}

// authAPIKey is the id of the API key authentication method.
const authAPIKey = "openai-api-key"

// Authenticate succeeds when the model needs no key, or the environment
// gives one.
func (a *Agent) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if a.cfg.APIKeyMissing == nil || !a.cfg.APIKeyMissing() {
		return sdk.AuthenticateResponse{}, nil
	}
	if p.MethodId != authAPIKey {
		return sdk.AuthenticateResponse{}, invalidParams("unknown authentication method %q: use %q", p.MethodId, authAPIKey)
	}
	return sdk.AuthenticateResponse{}, sdk.NewAuthRequired(map[string]any{"error": "OPENAI_API_KEY is not set: set it in the environment autarch acp starts with, then restart the agent"})
}

// NewSession opens a session over cwd (a git repository), in discuss mode.
func (a *Agent) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	id := newSessionID()
	f, err := a.folder(p.Cwd, id, p.McpServers)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if _, err := f.engine(ctx); err != nil {
		f.mcp.release(f.mcp.drop(id))
		return sdk.NewSessionResponse{}, err
	}
	rec := record{ID: id, Cwd: f.dir, Mode: ModeDiscuss, Created: time.Now().UTC()}
	s := a.addSession(f, rec)
	if err := s.save(ctx); err != nil {
		a.log.Warn("acp session not recorded: it cannot be loaded after a restart", "session", rec.ID, "err", err)
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(rec.ID), Modes: modeState(rec.Mode)}, nil
}

// LoadSession reopens a recorded session and replays its history: the
// discussion, or the workflow's or job's conversation, cards, tool calls
// and results from the store.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	s, err := a.reopen(ctx, p.Cwd, p.McpServers, p.SessionId)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.replay(ctx); err != nil {
		return sdk.LoadSessionResponse{}, fmt.Errorf("replay session %s: %w", p.SessionId, err)
	}
	s.announceCommands(ctx)
	return sdk.LoadSessionResponse{Modes: modeState(s.mode())}, nil
}

// ResumeSession reopens a recorded session without replaying its history
// (the client kept it); a discussion's next prompt still carries it to the
// discussion agent.
func (a *Agent) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	s, err := a.reopen(ctx, p.Cwd, p.McpServers, p.SessionId)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	if s.mode() == ModeWorkflow { // a mode without commands sends nothing: resume replays nothing
		s.announceCommands(ctx)
	}
	return sdk.ResumeSessionResponse{Modes: modeState(s.mode())}, nil
}

// reopen is a session of cwd: the open one, else the recorded one made
// open again; the servers passed are the session's from now on.
func (a *Agent) reopen(ctx context.Context, cwd string, servers []sdk.McpServer, id sdk.SessionId) (*session, error) {
	f, err := a.folder(cwd, string(id), servers)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	s := a.sessions[id]
	a.mu.Unlock()
	if s != nil {
		if rec := s.record(); rec.Cwd != f.dir {
			f.mcp.release(f.mcp.drop(string(id)))
			return nil, invalidParams("session %s belongs to %s, not %s: send its own cwd", id, rec.Cwd, f.dir)
		}
		return s, nil // open: its discussion thread still holds its conversation
	}
	rec, err := f.load(ctx, string(id))
	if err != nil {
		f.mcp.release(f.mcp.drop(string(id)))
		return nil, err
	}
	s = a.addSession(f, rec)
	s.rejoin()
	return s, nil
}

// UnstableForkSession makes a new session of cwd holding a copy of a
// discussion's history (the original's goes on apart), in its mode. A
// session that drives a workflow or a job is not forked: that work has
// one session.
func (a *Agent) UnstableForkSession(ctx context.Context, p sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error) {
	servers, err := stableServers(p.McpServers)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	src, err := a.reopen(ctx, p.Cwd, nil, p.SessionId)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	from := src.record()
	if from.WorkflowID != "" || from.JobID != "" {
		return sdk.UnstableForkSessionResponse{}, invalidRequest("session %s drives %s, which only it continues: fork a discussion, or start a new session with session/new", from.ID, boundTo(from))
	}
	id := newSessionID()
	if _, err := a.folder(p.Cwd, id, servers); err != nil { // the fork's servers are its own
		return sdk.UnstableForkSessionResponse{}, err
	}
	rec := record{ID: id, Cwd: from.Cwd, Mode: from.Mode, Created: time.Now().UTC(), Title: from.Title,
		Discussion: slices.Clone(from.Discussion)}
	s := a.addSession(src.f, rec)
	s.rejoin()
	if err := s.save(ctx); err != nil {
		a.log.Warn("acp session not recorded: it cannot be loaded after a restart", "session", rec.ID, "err", err)
	}
	return sdk.UnstableForkSessionResponse{SessionId: sdk.SessionId(rec.ID), Modes: modeState(rec.Mode)}, nil
}

// stableServers reads the MCP servers of an unstable request (the same
// wire shape) as session/new's.
func stableServers(list []sdk.UnstableMcpServer) ([]sdk.McpServer, error) {
	if len(list) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, invalidParams("mcpServers: %v", err)
	}
	var out []sdk.McpServer
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, invalidParams("mcpServers: %v: pass stdio, http or sse servers", err)
	}
	return out, nil
}

// SetSessionMode switches a session's mode; a session that already drives
// a workflow or a job keeps it.
func (a *Agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	return sdk.SetSessionModeResponse{}, s.setMode(ctx, Mode(p.ModeId))
}

// Prompt runs one turn of the session's mode.
func (a *Agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text := promptText(p.Prompt)
	if text == "" {
		return sdk.PromptResponse{}, invalidParams("the prompt has no text: write what you want (text and embedded resources are read; images and audio are not)")
	}
	return s.prompt(ctx, text)
}

// Cancel stops a session's running turn: a workflow is stopped with its
// pulse work kept as a recovery checkpoint (as autarch stop does), a job
// is stopped, a discussion turn ends.
func (a *Agent) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.stop(ctx, "cancelled from the editor (session/cancel)")
	return nil
}

// CloseSession ends a session in this process: its running turn stops as
// session/cancel stops it, and it is forgotten until session/load or
// session/resume reopens it (its record and its work's history stay).
func (a *Agent) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	// Forgotten first: a load from now on reopens it from its record (and
	// counts among the users of the servers it passes).
	var unused []string
	a.mu.Lock()
	if a.sessions[p.SessionId] == s {
		delete(a.sessions, p.SessionId)
		unused = s.f.mcp.drop(string(p.SessionId))
	}
	a.mu.Unlock()
	s.close(ctx, a.cfg.CloseWait)
	s.f.mcp.release(unused) // once its turn, which may call them, ended
	return sdk.CloseSessionResponse{}, nil
}

// ListSessions lists the recorded sessions of cwd (else of the folders
// open in this process), most recently updated first.
func (a *Agent) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	var folders []*folder
	if p.Cwd != nil {
		f, err := a.folder(*p.Cwd, "", nil)
		if err != nil {
			return sdk.ListSessionsResponse{}, err
		}
		folders = append(folders, f)
	} else {
		a.mu.Lock()
		for _, f := range a.folders {
			folders = append(folders, f)
		}
		a.mu.Unlock()
	}
	res := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, f := range folders {
		infos, err := f.list(ctx)
		if err != nil {
			return sdk.ListSessionsResponse{}, err
		}
		res.Sessions = append(res.Sessions, infos...)
	}
	slices.SortStableFunc(res.Sessions, func(x, y sdk.SessionInfo) int { return cmp.Compare(*y.UpdatedAt, *x.UpdatedAt) })
	return res, nil
}

// SetSessionConfigOption is not offered: modes are set with session/set_mode.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// folder is the open folder of cwd, made on first use; the MCP servers
// the client passed for session join the folder's (refused, with nothing
// added, when one names a server the folder has with another definition).
func (a *Agent) folder(cwd, session string, servers []sdk.McpServer) (*folder, error) {
	if !filepath.IsAbs(cwd) {
		return nil, invalidParams("cwd %q is not an absolute path: send the project's absolute directory", cwd)
	}
	dir := filepath.Clean(cwd)
	passed, err := mcpServers(servers, a.log)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, errors.New("autarch acp is closing")
	}
	f := a.folders[dir]
	if f == nil {
		f = newFolder(a, dir, &MCPServers{})
		a.folders[dir] = f
	}
	if len(passed) > 0 {
		if err := f.mcp.use(session, passed); err != nil {
			return nil, invalidParams("%v", err)
		}
	}
	return f, nil
}

func (a *Agent) addSession(f *folder, rec record) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[sdk.SessionId(rec.ID)]; s != nil {
		return s
	}
	s := &session{a: a, f: f, rec: rec, calls: newCallTracker(a.cfg.Tools)}
	a.sessions[sdk.SessionId(rec.ID)] = s
	return s
}

// session is a known session, or an error naming what to do.
func (a *Agent) session(id sdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, invalidParams("unknown session %q: create one with session/new, or reopen a recorded one with session/load", id)
}

// sessionsOf lists the sessions of a folder.
func (a *Agent) sessionsOf(f *folder) []*session {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*session
	for _, s := range a.sessions {
		if s.f == f {
			out = append(out, s)
		}
	}
	return out
}

func (a *Agent) capabilities() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.caps
}

func modeState(current Mode) *sdk.SessionModeState {
	return &sdk.SessionModeState{AvailableModes: modes, CurrentModeId: sdk.SessionModeId(current)}
}

func newSessionID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("acp-%d", time.Now().UnixNano())
	}
	return "acp-" + hex.EncodeToString(b[:])
}

// invalidParams is a request error that names what was wrong.
func invalidParams(format string, args ...any) *sdk.RequestError {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf(format, args...)}
}

// invalidRequest is a request that cannot be served now.
func invalidRequest(format string, args ...any) *sdk.RequestError {
	return &sdk.RequestError{Code: -32600, Message: fmt.Sprintf(format, args...)}
}

// gatedReader blocks reads until open is closed.
type gatedReader struct {
	r    io.Reader
	open chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
