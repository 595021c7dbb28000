package langserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"
)

// Starter makes the process of a server (argv[0] is the executable's
// absolute path, env extra KEY=VALUE variables that pin what it runs),
// not started: the client sets its stdin, stdout and stderr. Cancelling
// ctx must kill the process (and what it started). The tools' Starter
// confines the server in the sandbox of the worktree.
type Starter func(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, error)

// Default timeouts of Options.
const (
	DefaultStartTimeout = 2 * time.Minute
	DefaultCallTimeout  = 30 * time.Second
)

// Options tune a Pool.
type Options struct {
	// StartTimeout bounds starting and initializing a server and the first
	// request of each method (which waits for the server to load the
	// workspace and build what the method needs); 0: DefaultStartTimeout.
	StartTimeout time.Duration
	// CallTimeout bounds each later request of a method; 0:
	// DefaultCallTimeout.
	CallTimeout time.Duration
	// Log receives the servers' lifecycle (nil: slog.Default()).
	Log *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return o
}

// Pool holds one client per (worktree root, server): reused by every
// session over the root, shut down by Close.
type Pool struct {
	opts Options

	mu      sync.Mutex
	clients map[poolKey]*Client
}

type poolKey struct{ root, server string }

// NewPool makes an empty pool; servers start on their first call.
func NewPool(opts Options) *Pool {
	return &Pool{opts: opts.withDefaults(), clients: map[poolKey]*Client{}}
}

// Client returns the client of srv for the worktree root, creating it (not
// yet started) on first use.
func (p *Pool) Client(root string, srv Server) *Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := poolKey{filepath.Clean(root), srv.Name}
	c, ok := p.clients[k]
	if !ok {
		c = &Client{root: k.root, srv: srv, opts: p.opts}
		p.clients[k] = c
	}
	return c
}

// Running returns the client of srv for the worktree root when its server
// is running (started and not exited); nil otherwise. Nothing is started.
func (p *Pool) Running(root string, srv Server) *Client {
	p.mu.Lock()
	c := p.clients[poolKey{filepath.Clean(root), srv.Name}]
	p.mu.Unlock()
	if c == nil || !c.Running() {
		return nil
	}
	return c
}

// Starts counts the starts of the pool's servers (restarts included).
func (p *Pool) Starts() int {
	n := 0
	for _, c := range p.all() {
		n += c.Starts()
	}
	return n
}

// Live counts the pool's servers running now.
func (p *Pool) Live() int {
	n := 0
	for _, c := range p.all() {
		if c.Running() {
			n++
		}
	}
	return n
}

// all are the pool's clients.
func (p *Pool) all() []*Client {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := make([]*Client, 0, len(p.clients))
	for _, c := range p.clients {
		cs = append(cs, c)
	}
	return cs
}

// Close shuts every running server down (politely, then by force).
func (p *Pool) Close(ctx context.Context) {
	var wg sync.WaitGroup
	for _, c := range p.all() {
		wg.Go(func() { c.Shutdown(ctx) })
	}
	wg.Wait()
}

// StopRoot shuts down the running servers of the worktree root (their
// clients start them again on the next call).
func (p *Pool) StopRoot(ctx context.Context, root string) {
	root = filepath.Clean(root)
	var wg sync.WaitGroup
	for _, c := range p.all() {
		if c.root == root {
			wg.Go(func() { c.Shutdown(ctx) })
		}
	}
	wg.Wait()
	p.opts.Log.Info("language servers stopped", "root", root, "why", "the masks changed")
}

// Client talks to one server over one worktree. A server that crashed or
// did not answer in time is stopped, and the next call starts it again.
type Client struct {
	root string
	srv  Server
	opts Options

	mu     sync.Mutex // guards proc and starts; held while starting and syncing
	proc   *process
	starts int
}

// Server is the client's server.
func (c *Client) Server() Server { return c.srv }

// Starts counts the server's starts (restarts after a crash or hang
// included).
func (c *Client) Starts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts
}

// Running reports whether the server is running (started, not exited).
func (c *Client) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.proc == nil {
		return false
	}
	select {
	case <-c.proc.exited:
		return false
	default:
		return true
	}
}

// UnavailableError is a server that could not start, crashed or did not
// answer in time: the call's answer, and the next call starts it again.
type UnavailableError struct{ Msg string }

func (e *UnavailableError) Error() string { return e.Msg }

// RefusedError is a server Autarch does not start (or stopped) for the
// worktree, saying why (Server.Confine, Server.Recheck): retrying does
// not help until the worktree or the installation changes.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

// process is one running server.
type process struct {
	cancel context.CancelFunc
	conn   jsonrpc2.Conn
	exited chan struct{}
	err    error // the exit, once exited is closed
	stderr *tailBuffer
	// answered are the methods the server answered once: until then the
	// server may still be loading the workspace or building the index the
	// method needs (a first references call type-checks every dependent
	// package), and StartTimeout applies.
	answered map[string]bool

	docs  map[string]*document // by absolute path; guarded by Client.mu
	diags diagnosticsStore
}

type document struct {
	version int32
	text    string
}

// Call sends a request (after the file syncs Sync made) and decodes its
// result into result (a pointer; *json.RawMessage keeps it raw). start
// makes the process when the server is not running.
func (c *Client) Call(ctx context.Context, start Starter, method string, params, result any) error {
	c.mu.Lock()
	p, err := c.running(ctx, start)
	timeout := c.opts.CallTimeout
	if err == nil && !p.answered[method] {
		timeout = c.opts.StartTimeout
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	raw, err := c.request(ctx, p, timeout, method, params)
	if err != nil {
		return err
	}
	c.mu.Lock()
	p.answered[method] = true
	c.mu.Unlock()
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("%s answered %s with a result Autarch cannot read: %w", c.srv.Name, method, err)
	}
	return nil
}

// request sends one request to p within timeout; a hang or a crash stops p.
func (c *Client) request(ctx context.Context, p *process, timeout time.Duration, method string, params any) (json.RawMessage, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	type answer struct {
		raw jsonrpc2.RawMessage
		err error
	}
	done := make(chan answer, 1)
	go func() {
		var raw jsonrpc2.RawMessage
		_, err := p.conn.Call(cctx, method, params, &raw)
		done <- answer{raw, err}
	}()
	select {
	case a := <-done:
		if a.err == nil {
			return json.RawMessage(a.raw), nil
		}
		var rpcErr *jsonrpc2.Error
		if errors.As(a.err, &rpcErr) {
			// The server's own answer ("no identifier found"): it is healthy.
			return nil, &ServerError{Server: c.srv.Name, Method: method, Msg: rpcErr.Message}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if cctx.Err() != nil {
			return nil, c.stop(p, fmt.Sprintf("%s did not answer %s within %s", c.srv.Name, method, timeout))
		}
		return nil, c.stop(p, fmt.Sprintf("%s stopped while answering %s (%v)", c.srv.Name, method, a.err))
	case <-p.exited:
		return nil, c.stop(p, fmt.Sprintf("%s stopped while answering %s", c.srv.Name, method))
	}
}

// ServerError is a server's error answer to a request.
type ServerError struct{ Server, Method, Msg string }

func (e *ServerError) Error() string { return e.Server + ": " + e.Msg }

// stop kills p and returns the UnavailableError saying what happened; the
// next call sees p exited and starts another.
func (c *Client) stop(p *process, what string) error {
	p.cancel()
	<-p.exited
	msg := what
	if p.err != nil {
		msg += " (exit: " + p.err.Error() + ")"
	}
	if tail := strings.TrimSpace(p.stderr.String()); tail != "" {
		msg += "; its last output: " + tail
	}
	c.opts.Log.Warn("language server stopped", "server", c.srv.Name, "root", c.root, "why", what, "err", p.err)
	return &UnavailableError{Msg: msg + "; it was stopped and starts again on the next call"}
}

// Check asks the server's Recheck about the tree before a request (and
// the syncs before it); a refusal stops a running server and is the
// answer.
func (c *Client) Check() error {
	if c.srv.Recheck == nil {
		return nil
	}
	err := c.srv.Recheck(c.root)
	if err == nil {
		return nil
	}
	if c.Running() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.Shutdown(ctx)
		c.opts.Log.Warn("language server stopped", "server", c.srv.Name, "root", c.root, "why", err)
	}
	return &RefusedError{Msg: err.Error()}
}

// running returns the running process, starting one when there is none or
// the last one exited. c.mu is held.
func (c *Client) running(ctx context.Context, start Starter) (*process, error) {
	if p := c.proc; p != nil {
		select {
		case <-p.exited:
			c.proc = nil
		default:
			return p, nil
		}
	}
	path, err := c.srv.Path()
	if err != nil {
		return nil, err
	}
	l, err := c.srv.launch(path, c.root)
	if err != nil {
		var ni *NotInstalledError
		if errors.As(err, &ni) {
			return nil, ni
		}
		return nil, &RefusedError{Msg: err.Error()}
	}
	c.starts++
	pctx, cancel := context.WithCancel(context.Background()) // the server outlives the call that started it
	cmd, err := start(pctx, c.root, append([]string{l.Exe}, c.srv.Command[1:]...), l.Env)
	if err != nil {
		cancel()
		return nil, &UnavailableError{Msg: fmt.Sprintf("%s cannot start: %v", c.srv.Name, err)}
	}
	p, err := launch(pctx, cancel, cmd)
	if err != nil {
		cancel()
		return nil, &UnavailableError{Msg: fmt.Sprintf("%s cannot start: %v", c.srv.Name, err)}
	}
	c.opts.Log.Info("language server started", "server", c.srv.Name, "root", c.root, "start", c.starts)
	if _, err := c.request(ctx, p, c.opts.StartTimeout, "initialize", initializeParams(c.root, l.Options)); err != nil {
		p.cancel()
		<-p.exited
		return nil, err
	}
	if err := p.conn.Notify(ctx, "initialized", struct{}{}); err != nil {
		p.cancel()
		<-p.exited
		return nil, &UnavailableError{Msg: fmt.Sprintf("%s stopped after initialize: %v", c.srv.Name, err)}
	}
	c.proc = p
	return p, nil
}

// launch starts cmd with its stdio connected to a JSON-RPC connection.
func launch(ctx context.Context, cancel context.CancelFunc, cmd *exec.Cmd) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{cancel: cancel, exited: make(chan struct{}), stderr: &tailBuffer{max: 2048}, docs: map[string]*document{}, answered: map[string]bool{}}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		inW.Close()
		close(p.exited)
	}()
	p.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeRWC{outR, inW}))
	p.conn.Go(ctx, p.handle)
	return p, nil
}

// pipeRWC is the server's stdout (read) and stdin (write).
type pipeRWC struct {
	r *os.File
	w *os.File
}

func (p pipeRWC) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeRWC) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeRWC) Close() error                { return errors.Join(p.r.Close(), p.w.Close()) }

// handle answers the server's requests and notifications: configuration
// is empty, progress and registrations are accepted, edits the server
// wants to apply by itself are refused (Autarch applies edits through its
// own write path), diagnostics are kept.
func (p *process) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case "workspace/configuration":
		var params struct {
			Items []json.RawMessage `json:"items"`
		}
		_ = json.Unmarshal(req.Params(), &params)
		return make([]any, len(params.Items)), nil
	case "window/workDoneProgress/create", "client/registerCapability", "client/unregisterCapability", "window/showMessageRequest",
		"workspace/diagnostic/refresh", "workspace/semanticTokens/refresh", "workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		return nil, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "Autarch applies edits itself"}, nil
	case "textDocument/publishDiagnostics":
		p.diags.publish(json.RawMessage(req.Params()))
		return nil, nil
	}
	if !req.IsCall() {
		return nil, nil // $/progress, window/logMessage, telemetry
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not supported by Autarch: %s", req.Method())
}

// initializeParams are the client's capabilities: plain text or markdown
// hovers, hierarchical symbols, versioned edits, no file operations.
func initializeParams(root string, opts map[string]any) map[string]any {
	u := uri.File(root)
	params := map[string]any{
		"processId": nil, // in its own PID namespace, the server cannot watch ours
		"rootUri":   u, "rootPath": root,
		"workspaceFolders": []map[string]any{{"uri": u, "name": filepath.Base(root)}},
		"clientInfo":       map[string]any{"name": "autarch"},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": false},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
				"definition":         map[string]any{"linkSupport": false},
				"references":         map[string]any{},
				"rename":             map[string]any{"prepareSupport": false},
				"callHierarchy":      map[string]any{},
				"publishDiagnostics": map[string]any{"versionSupport": true},
			},
			"workspace": map[string]any{
				"workspaceEdit":    map[string]any{"documentChanges": true},
				"configuration":    true,
				"workspaceFolders": true,
				"symbol":           map[string]any{},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if opts != nil {
		params["initializationOptions"] = opts
	}
	return params
}

// Sync tells the server the content of a file (absolute path): opened on
// first sight, changed (full text) when it differs from what the server
// has. Agents' writes reach the server this way before every request.
func (c *Client) Sync(ctx context.Context, start Starter, path string, content []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, err := c.running(ctx, start)
	if err != nil {
		return err
	}
	text := string(content)
	u := uri.File(path)
	d, open := p.docs[path]
	switch {
	case !open:
		d = &document{version: 1, text: text}
		err = p.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": u, "languageId": c.srv.LanguageID(path), "version": d.version, "text": text}})
	case d.text != text:
		d.version++
		d.text = text
		err = p.conn.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": d.version},
			"contentChanges": []map[string]any{{"text": text}}})
	default:
		return nil
	}
	if err != nil {
		return c.stop(p, fmt.Sprintf("%s stopped reading (%v)", c.srv.Name, err))
	}
	p.docs[path] = d
	return nil
}

// Shutdown asks the server to shut down and exit, and kills it when it
// does not within a few seconds (or ctx's deadline).
func (c *Client) Shutdown(ctx context.Context) {
	c.mu.Lock()
	p := c.proc
	c.proc = nil
	c.mu.Unlock()
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := p.conn.Call(ctx, "shutdown", nil, nil); err == nil {
		_ = p.conn.Notify(ctx, "exit", nil)
	}
	select {
	case <-p.exited:
	case <-ctx.Done():
	}
	p.cancel()
	<-p.exited
	_ = p.conn.Close()
}

// tailBuffer keeps the last max bytes written (a server's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ToValidUTF8(t.b, nil))
}

var _ io.Writer = (*tailBuffer)(nil)
