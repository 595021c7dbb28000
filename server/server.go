// Package server is the LSP/JSON-RPC surface of autarch: the lifecycle,
// capabilities, workspace/executeCommand and the custom autarch/* methods.
// It holds no domain logic: every method is a handler in methods.go's one
// table, in the file of its family (lifecycle.go, workspace.go,
// textdocument.go, window.go, autarch.go, workflows.go), and a handler
// decodes, calls one method of the application session (app.Session)
// and encodes. The server reaches the user only through its editor.Client
// (client.go).
//
// Message handling: notifications run in arrival order on the read loop;
// requests are released to run concurrently; $/cancelRequest cancels a
// request's context; a panicking handler becomes an InternalError response
// and the connection stays up; unknown notifications are logged and dropped;
// unknown requests get MethodNotFound. The exit notification ends Serve at
// once: pending requests and background work are cancelled (their state is
// durable as it happens), nothing waits for a client that will not answer.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/autarch-dev/autarch/app"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools"
)

// codeRequestCancelled is LSP's RequestCancelled error code.
const codeRequestCancelled jsonrpc2.Code = -32800

// exitGrace bounds how long exit waits for cancelled work to record how it
// ended and for the stream to close, so the process ends within 100 ms.
const exitGrace = 50 * time.Millisecond

// SessionParams are what a session's domain needs of the connection.
type SessionParams struct {
	// Editor is the client, as the domain's port.
	Editor editor.Client
	// Document is the text of a document open in the client (absolute path).
	Document func(path string) (string, bool)
	// Diagnostics are the client's diagnostics (nil when it cannot give them).
	Diagnostics tools.Diagnostics
	// Events is the session's event stream, which the server sends as
	// notifications (app.Config.Events).
	Events func(app.Event)
}

// Config configures a Server.
type Config struct {
	// Version is reported in serverInfo and the status.
	Version string
	// LogFile is the path of the log file, shown in the status ("" if none).
	LogFile string
	// Getenv looks up environment fallbacks for settings (os.Getenv if nil).
	Getenv func(string) string
	// Logger receives the server's logs (never stdout); slog.Default if nil.
	Logger *slog.Logger
	// Session makes the domain of a session once the client is known
	// (cmd/autarch wires model, sandbox and search into it); nil: a session
	// without a model.
	Session func(p SessionParams) *app.Session
	// Settings receives the effective model settings whenever they change
	// (cmd/autarch's model follows them).
	Settings func(model editor.ModelSettings, apiKey string)
	// Project reports a workspace folder's MCP servers and project rules
	// (autarch/project); nil: none are reported.
	Project func(ctx context.Context, folder string) editor.ProjectState
}

// handler handles one method: params are the raw JSON params (for a
// command, its one argument).
type handler func(s *Server, ctx context.Context, params json.RawMessage) (any, error)

// Server is one LSP session with one client.
type Server struct {
	cfg     Config
	log     *slog.Logger
	methods map[string]method

	docs     *documents
	progress *progressTable

	mu       sync.Mutex
	state    lifecycle
	client   clientInfo
	folders  []string
	settings settings
	session  *app.Session

	conn   jsonrpc2.Conn
	exitCh chan int
}

type lifecycle int

const (
	uninitialized lifecycle = iota
	running
	shutDown
)

// New makes a server.
func New(cfg Config) *Server {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Settings == nil {
		cfg.Settings = func(editor.ModelSettings, string) {}
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		methods:  methodTable(),
		docs:     newDocuments(),
		progress: newProgressTable(),
		exitCh:   make(chan int, 1),
	}
	s.setSettings(resolveSettings(editor.Settings{}, "", sourceNone, cfg.Getenv))
	return s
}

// RegisterRequest adds a client → server request handler; tests use it.
func (s *Server) RegisterRequest(name string, fn func(ctx context.Context, params json.RawMessage) (any, error)) {
	s.methods[name] = method{kind: request, fn: func(_ *Server, ctx context.Context, p json.RawMessage) (any, error) { return fn(ctx, p) }}
}

// commandNames lists the commands, sorted.
func (s *Server) commandNames() []string {
	var names []string
	for n, m := range s.methods {
		if m.kind == command {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Serve speaks the protocol on rwc until the client sends exit or the
// stream ends, and returns the process exit code: 0 after shutdown and
// exit, 1 otherwise. It returns within exitGrace×2 of exit, whatever is
// pending: callers should end the process then.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	handler, canceller := jsonrpc2.CancelHandler(s.handle)
	s.conn = jsonrpc2.NewConn(newStream(rwc, s.log),
		jsonrpc2.WithCodec(codec{}),
		jsonrpc2.WithPreempter(cancelPreempter{cancel: canceller, log: s.log}))
	s.conn.Go(ctx, handler)
	code := 1
	select {
	case code = <-s.exitCh:
	case <-s.conn.Done():
		if err := s.conn.Err(); err != nil {
			s.log.Error("connection ended", "err", err)
		} else {
			s.log.Info("connection closed by the client without exit")
		}
	case <-ctx.Done():
	}
	cancel() // pending requests end with the connection's context
	s.mu.Lock()
	sess := s.session
	s.mu.Unlock()
	if sess != nil {
		sess.Close(exitGrace)
	}
	// Closing the stream may block on a read the OS does not interrupt
	// (stdin): do not wait for it beyond the grace.
	closed := make(chan struct{})
	go func() {
		if err := s.conn.Close(); err != nil {
			s.log.Debug("closing the connection", "err", err)
		}
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(exitGrace):
	}
	return code
}

// Client returns the editor.Client over this connection; valid once Serve runs.
func (s *Server) Client() editor.Client { return &lspClient{s: s} }

// handle dispatches one incoming message.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	name := strings.Clone(req.Method())
	isCall := req.IsCall()
	if isCall {
		jsonrpc2.Async(ctx) // requests run concurrently; notifications stay ordered
	}
	params := json.RawMessage(slices.Clone(req.Params()))
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", "method", name, "panic", r, "stack", string(debug.Stack()))
			result = nil
			err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", name, r)
			if !isCall {
				err = nil
			}
		}
	}()
	if !isCall {
		s.notify(ctx, name, params)
		return nil, nil
	}
	return s.call(ctx, name, params)
}

func (s *Server) notify(ctx context.Context, name string, params json.RawMessage) {
	m, ok := s.methods[name]
	if !ok || m.kind != notification {
		s.log.Debug("ignoring unknown notification", "method", name)
		return
	}
	if name != "exit" && name != "initialized" && !s.is(running) {
		s.log.Warn("notification before initialize or after shutdown ignored", "method", name)
		return
	}
	if _, err := m.fn(s, ctx, params); err != nil {
		// A notification error would close the connection: log it instead.
		s.log.Warn("notification failed", "method", name, "err", err)
	}
}

func (s *Server) call(ctx context.Context, name string, params json.RawMessage) (any, error) {
	m, ok := s.methods[name]
	if !ok || m.kind != request {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", name)
	}
	switch {
	case name == "initialize":
	case s.is(uninitialized):
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "server not initialized: send initialize before %s", name)
	case s.is(shutDown):
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "server is shut down: only exit is accepted")
	}
	return s.result(ctx, name)(m.fn(s, ctx, params))
}

// result turns a handler's error into a JSON-RPC error: cancelled,
// invalid params (the domain's errors with Invalid() true), or internal.
func (s *Server) result(ctx context.Context, name string) func(any, error) (any, error) {
	return func(res any, err error) (any, error) {
		if err == nil {
			return res, nil
		}
		var rpcErr *jsonrpc2.Error
		var inv interface{ Invalid() bool }
		switch {
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			return nil, jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
		case errors.As(err, &rpcErr):
			return nil, err
		case errors.As(err, &inv) && inv.Invalid():
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		s.log.Debug("request failed", "method", name, "err", err)
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
}

func (s *Server) is(st lifecycle) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == st
}

// domain is the session's domain, made at initialize.
func (s *Server) domain() (*app.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return nil, errors.New("the server is not initialized")
	}
	return s.session, nil
}

// decode unmarshals params into v, turning failures into InvalidParams.
func decode(params json.RawMessage, v any) error {
	// Lua clients (Neovim) encode an empty table as [] even where an
	// object is meant: an empty array is no params, like null.
	if trimmed := bytes.TrimSpace(params); len(trimmed) == 0 || string(trimmed) == "null" || emptyArray(trimmed) {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// emptyArray reports whether b is a JSON array with no elements.
func emptyArray(b []byte) bool {
	return len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' && len(bytes.TrimSpace(b[1:len(b)-1])) == 0
}

// cancelPreempter handles $/cancelRequest on the read loop, ahead of the
// requests it cancels.
type cancelPreempter struct {
	cancel func(jsonrpc2.ID)
	log    *slog.Logger
}

func (p cancelPreempter) Preempt(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if req.Method() != "$/cancelRequest" {
		return nil, jsonrpc2.ErrNotHandled
	}
	var params struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(req.Params(), &params); err != nil {
		p.log.Warn("bad $/cancelRequest", "err", err)
		return struct{}{}, nil
	}
	var n int64
	var str string
	switch {
	case json.Unmarshal(params.ID, &n) == nil:
		p.cancel(jsonrpc2.NewNumberID(n))
	case json.Unmarshal(params.ID, &str) == nil:
		p.cancel(jsonrpc2.NewStringID(str))
	default:
		p.log.Warn("bad $/cancelRequest id", "id", string(params.ID))
	}
	return struct{}{}, nil
}

// invalidParams makes an InvalidParams error for a handler.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}
