// Package server is the LSP/JSON-RPC surface of autarch: the lifecycle,
// capabilities, workspace/executeCommand and the custom autarch/* methods.
// Handlers decode, call one domain function, and encode; one file per method
// family (lifecycle.go, workspace.go, textdocument.go, window.go, autarch.go).
//
// Message handling: notifications run in arrival order on the read loop;
// requests are released to run concurrently; $/cancelRequest cancels a
// request's context; a panicking handler becomes an InternalError response
// and the connection stays up; unknown notifications are logged and dropped;
// unknown requests get MethodNotFound.
package server

import (
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

	"github.com/autarch-dev/autarch/editor"
)

// codeRequestCancelled is LSP's RequestCancelled error code.
const codeRequestCancelled jsonrpc2.Code = -32800

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
}

// Command runs one workspace/executeCommand command.
type Command func(ctx context.Context, args []json.RawMessage) (any, error)

// Request handles one client → server request; params are the raw JSON params.
type Request func(ctx context.Context, params json.RawMessage) (any, error)

// Server is one LSP session with one client.
type Server struct {
	cfg     Config
	log     *slog.Logger
	started time.Time

	commands map[string]Command
	requests map[string]Request
	notifs   map[string]func(ctx context.Context, params json.RawMessage) error

	docs     *documents
	progress *progressTable
	wb       *workbench

	mu       sync.Mutex
	state    lifecycle
	client   clientInfo
	folders  []string
	settings settings

	conn   jsonrpc2.Conn
	exitCh chan int
}

type lifecycle int

const (
	uninitialized lifecycle = iota
	running
	shutDown
)

// New makes a server; register commands and requests before Serve.
func New(cfg Config) *Server {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		started:  time.Now(),
		commands: map[string]Command{},
		requests: map[string]Request{},
		notifs:   map[string]func(context.Context, json.RawMessage) error{},
		docs:     newDocuments(),
		progress: newProgressTable(),
		exitCh:   make(chan int, 1),
	}
	s.settings = resolveSettings(editor.Settings{}, sourceNone, cfg.Getenv)
	s.registerLifecycle()
	s.registerWorkspace()
	s.registerTextDocument()
	s.registerWindow()
	s.registerAutarch()
	s.wb = newWorkbench(s)
	s.registerWorkflows()
	return s
}

// RegisterCommand adds a workspace/executeCommand command; it is advertised
// in the executeCommandProvider capability.
func (s *Server) RegisterCommand(name string, fn Command) { s.commands[name] = fn }

// RegisterRequest adds a client → server request handler (e.g. autarch/*).
func (s *Server) RegisterRequest(method string, fn Request) { s.requests[method] = fn }

// commandNames lists the registered commands, sorted.
func (s *Server) commandNames() []string {
	names := make([]string, 0, len(s.commands))
	for n := range s.commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Serve speaks the protocol on rwc until the client sends exit or the
// stream ends, and returns the process exit code: 0 after shutdown and
// exit, 1 otherwise.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	handler, canceller := jsonrpc2.CancelHandler(s.handle)
	s.conn = jsonrpc2.NewConn(newStream(rwc, s.log),
		jsonrpc2.WithCodec(codec{}),
		jsonrpc2.WithPreempter(cancelPreempter{cancel: canceller, log: s.log}))
	s.conn.Go(ctx, handler)
	s.wb.start(ctx)
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
	cancel()
	s.wb.stop(10 * time.Second) // running pulses record how they ended
	closed := make(chan struct{})
	go func() { s.conn.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		s.log.Warn("handlers did not finish within 5s of exit")
	}
	return code
}

// Client returns the editor.Client over this connection; valid once Serve runs.
func (s *Server) Client() editor.Client { return &lspClient{s: s} }

// handle dispatches one incoming message.
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
	method := strings.Clone(req.Method())
	isCall := req.IsCall()
	if isCall {
		jsonrpc2.Async(ctx) // requests run concurrently; notifications stay ordered
	}
	params := json.RawMessage(slices.Clone(req.Params()))
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
			result = nil
			err = jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", method, r)
			if !isCall {
				err = nil
			}
		}
	}()
	if !isCall {
		s.notify(ctx, method, params)
		return nil, nil
	}
	return s.call(ctx, method, params)
}

func (s *Server) notify(ctx context.Context, method string, params json.RawMessage) {
	fn, ok := s.notifs[method]
	if !ok {
		s.log.Debug("ignoring unknown notification", "method", method)
		return
	}
	if method != "exit" && method != "initialized" && !s.is(running) {
		s.log.Warn("notification before initialize or after shutdown ignored", "method", method)
		return
	}
	if err := fn(ctx, params); err != nil {
		// A notification error would close the connection: log it instead.
		s.log.Warn("notification failed", "method", method, "err", err)
	}
}

func (s *Server) call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	fn, ok := s.requests[method]
	if !ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	}
	switch {
	case method == "initialize":
	case s.is(uninitialized):
		return nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "server not initialized: send initialize before %s", method)
	case s.is(shutDown):
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "server is shut down: only exit is accepted")
	}
	res, err := fn(ctx, params)
	if err != nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return nil, jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
	}
	var rpcErr *jsonrpc2.Error
	if err != nil && !errors.As(err, &rpcErr) {
		err = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
	}
	return res, err
}

func (s *Server) is(st lifecycle) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == st
}

// decode unmarshals params into v, turning failures into InvalidParams.
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
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

// errorf makes an InvalidParams error for a handler.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}
