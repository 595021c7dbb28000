package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace/sandbox"
)

// defaultTimeout bounds a call when the server names no timeout.
const defaultTimeout = 60 * time.Second

// States of a server.
const (
	StateStopped = "stopped"
	StateRunning = "running"
	StateFailed  = "failed"
	StateExited  = "exited"
)

// Server is one configured MCP server and its connection, if any.
type Server struct {
	name, origin, dir string
	cfg               tools.MCPServer
	log               *slog.Logger

	// stale is set when the server says its tool list changed (from the
	// connection's reader: it must not wait for mu).
	stale atomic.Bool

	mu       sync.Mutex
	session  *sdk.ClientSession
	proc     *exec.Cmd // the session's process (stdio servers)
	tools    []*Tool
	state    string
	err      error
	restarts int
}

func newServer(name string, cfg tools.MCPServer, origin, dir string, log *slog.Logger) *Server {
	return &Server{name: name, origin: origin, dir: dir, cfg: cfg, log: log, state: StateStopped}
}

// Name is the server's configured name.
func (s *Server) Name() string { return s.name }

// Origin is where it is configured: OriginRepository or OriginUser.
func (s *Server) Origin() string { return s.origin }

// Transport is stdio or http.
func (s *Server) Transport() string { return s.cfg.Transport() }

// State is the server's state and its last error.
func (s *Server) State() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, s.err
}

func (s *Server) timeout() time.Duration {
	if s.cfg.Timeout > 0 {
		return time.Duration(s.cfg.Timeout) * time.Second
	}
	return defaultTimeout
}

// Tools lists the server's tools, starting it if needed.
func (s *Server) Tools(ctx context.Context) ([]*Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools != nil && !s.stale.Load() && s.session != nil {
		return s.tools, nil
	}
	cs, err := s.sessionLocked(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	var list []*Tool
	s.stale.Store(false)
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		adapted, err := newTool(s, t)
		if err != nil {
			s.log.Warn("MCP tool left out", "tool", t.Name, "err", err)
			continue
		}
		list = append(list, adapted)
	}
	s.tools = list
	return list, nil
}

// sessionLocked returns the live session, connecting (or reconnecting,
// once, after a crash) when there is none.
func (s *Server) sessionLocked(ctx context.Context) (*sdk.ClientSession, error) {
	if s.session != nil {
		return s.session, nil
	}
	switch s.state {
	case StateExited:
		if s.restarts >= 1 {
			return nil, fmt.Errorf("the server exited again after a restart (%v); not restarting it", s.err)
		}
		s.restarts++
		s.log.Warn("restarting MCP server after it exited", "err", s.err)
	case StateFailed:
		return nil, s.err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	cs, proc, err := s.connect(ctx)
	if err != nil {
		killGroup(proc)
		s.state, s.err = StateFailed, fmt.Errorf("starting: %w", err)
		return nil, s.err
	}
	s.session, s.proc, s.state, s.err = cs, proc, StateRunning, nil
	go s.watch(cs, proc)
	return cs, nil
}

// watch notices the connection's end (a crash, a closed stream); what the
// server started goes with it.
func (s *Server) watch(cs *sdk.ClientSession, proc *exec.Cmd) {
	err := cs.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != cs {
		return
	}
	killGroup(proc)
	s.session, s.proc = nil, nil
	if s.state == StateRunning {
		if err == nil {
			err = errors.New("connection closed")
		}
		s.state, s.err = StateExited, err
		s.log.Warn("MCP server exited", "err", err)
	}
}

// connect starts the session (and, for a stdio server, its process,
// returned too: nil for HTTP).
func (s *Server) connect(ctx context.Context) (*sdk.ClientSession, *exec.Cmd, error) {
	cfg, err := expanded(s.cfg, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "autarch", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { s.stale.Store(true) },
	})
	var t sdk.Transport
	var proc *exec.Cmd
	switch cfg.Transport() {
	case "http":
		t = &sdk.StreamableClientTransport{Endpoint: cfg.URL, MaxRetries: 1, HTTPClient: httpClient(cfg)}
	case "sse":
		t = &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: httpClient(cfg)}
	default:
		proc = s.command(cfg)
		t = &sdk.CommandTransport{Command: proc, TerminateDuration: 2 * time.Second}
	}
	cs, err := client.Connect(ctx, t, nil)
	return cs, proc, err
}

// httpClient sends the configured headers with every request. OAuth is
// not negotiated: go-sdk v1.8.0's client side (auth.AuthorizationCodeHandler)
// is the authorization-code flow, which needs a browser and a redirect
// listener for every authorization and leaves storing tokens to the
// caller; Autarch runs headless behind the editor, so a server that needs
// OAuth is given a token by header, e.g. "Authorization": "Bearer ${TOKEN}".
func httpClient(cfg tools.MCPServer) *http.Client {
	return &http.Client{Transport: headers{h: cfg.Headers, base: http.DefaultTransport}}
}

// command is the server's process: outside the agents' sandbox (the user
// configured it, like a hook) but with a scrubbed environment plus the
// configured variables; its stderr goes to the log, line by line.
func (s *Server) command(cfg tools.MCPServer) *exec.Cmd {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = s.dir
	env := sandbox.ScrubEnv(os.Environ())
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		env = append(env, k+"="+cfg.Env[k])
	}
	cmd.Env = env
	cmd.Stderr = &lineLog{log: s.log}
	ownGroup(cmd)
	return cmd
}

// call calls a tool, starting (or restarting, once) the server as needed,
// within the server's timeout.
func (s *Server) call(ctx context.Context, name string, args map[string]any) (*sdk.CallToolResult, error) {
	s.mu.Lock()
	cs, err := s.sessionLocked(ctx)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	timeout := s.timeout()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("MCP server %s did not answer %s within %s", s.name, name, timeout)
	case err != nil && errors.Is(err, sdk.ErrConnectionClosed):
		return nil, fmt.Errorf("MCP server %s exited during %s: %w (it is restarted once on the next call)", s.name, name, err)
	case err != nil:
		return nil, fmt.Errorf("MCP server %s: %s: %w", s.name, name, err)
	}
	return res, nil
}

// Close stops the server.
func (s *Server) Close() error {
	s.mu.Lock()
	cs, proc := s.session, s.proc
	s.session, s.proc, s.state = nil, nil, StateStopped
	s.mu.Unlock()
	if cs == nil {
		return nil
	}
	err := cs.Close()
	killGroup(proc)
	return err
}

// lineLog writes a server's stderr to the log, line by line.
type lineLog struct {
	log *slog.Logger
	mu  sync.Mutex
	buf []byte
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.log.Info("MCP server stderr", "line", string(l.buf[:i]))
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 {
		l.log.Info("MCP server stderr", "line", string(l.buf))
		l.buf = nil
	}
	return len(p), nil
}

// headers adds the configured headers to every request.
type headers struct {
	h    map[string]string
	base http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// Status is the server's state, without starting it.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.name, Transport: s.cfg.Transport(), Origin: s.origin, State: s.state, Tools: []string{}}
	if s.err != nil {
		st.Err = s.err.Error()
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t.Name())
	}
	return st
}
