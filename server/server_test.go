package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
)

// harness runs a Server on one end of a pipe and a jsonrpc2 client on the other.
type harness struct {
	t      *testing.T
	srv    *Server
	client jsonrpc2.Conn
	raw    net.Conn
	exit   chan int
	mu     sync.Mutex
	notes  []note
	noteCh chan note
	onCall func(method string, params json.RawMessage) (any, error)
	cancel context.CancelFunc
	getenv map[string]string
}

type note struct {
	method string
	params json.RawMessage
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newHarness(t *testing.T, setup func(*Server)) *harness {
	t.Helper()
	h := &harness{t: t, exit: make(chan int, 1), noteCh: make(chan note, 1000), getenv: map[string]string{}}
	h.srv = New(Config{Version: "test", Logger: quietLogger(), Getenv: func(k string) string { return h.getenv[k] }})
	if setup != nil {
		setup(h.srv)
	}
	serverEnd, clientEnd := net.Pipe()
	h.raw = clientEnd
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.exit <- h.srv.Serve(ctx, serverEnd)
	}()
	h.client = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(clientEnd))
	h.client.Go(ctx, jsonrpc2.AsyncHandler(func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		params := json.RawMessage(append([]byte(nil), req.Params()...))
		if req.IsCall() {
			if h.onCall != nil {
				return h.onCall(req.Method(), params)
			}
			return nil, nil
		}
		h.noteCh <- note{req.Method(), params}
		return nil, nil
	}))
	t.Cleanup(func() {
		cancel()
		h.client.Close()
		h.raw.Close()
		// the session's runs and its swarm host (an embedded NATS writing
		// under the test's folder) stop before the folder is removed
		select {
		case <-served:
		case <-time.After(30 * time.Second):
			t.Errorf("the server did not stop within 30 s of its connection closing")
		}
	})
	return h
}

func (h *harness) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Patience) // 10 s ran out for autarch.newWorkflow at load 30
	defer cancel()
	_, err := h.client.Call(ctx, method, params, result)
	return err
}

func (h *harness) initialize(opts any) initializeResult {
	h.t.Helper()
	var res initializeResult
	params := map[string]any{
		"processId":        nil,
		"rootUri":          "file:///tmp/project",
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true, "showDocument": map[string]any{"support": true}}, "workspace": map[string]any{"applyEdit": true}},
		"workspaceFolders": []map[string]string{{"uri": "file:///tmp/project", "name": "project"}},
	}
	if opts != nil {
		params["initializationOptions"] = opts
	}
	if err := h.call("initialize", params, &res); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	if err := h.client.Notify(context.Background(), "initialized", map[string]any{}); err != nil {
		h.t.Fatal(err)
	}
	return res
}

func (h *harness) waitNote(method string) note {
	h.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case n := <-h.noteCh:
			if n.method == method {
				return n
			}
		case <-timeout:
			h.t.Fatalf("no %s notification", method)
		}
	}
}

func (h *harness) shutdownExit() int {
	h.t.Helper()
	if err := h.call("shutdown", nil, nil); err != nil {
		h.t.Fatalf("shutdown: %v", err)
	}
	if err := h.client.Notify(context.Background(), "exit", nil); err != nil {
		h.t.Fatal(err)
	}
	return h.waitExit()
}

func (h *harness) waitExit() int {
	select {
	case code := <-h.exit:
		return code
	case <-time.After(10 * time.Second):
		h.t.Fatal("server did not exit")
		return -1
	}
}

func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestLifecycleCustomRequestAndNotification(t *testing.T) {
	h := newHarness(t, nil)
	res := h.initialize(editor.Settings{Model: editor.ModelSettings{Name: "gpt-test", BaseURL: "http://127.0.0.1:1/v1"}, APIKey: "sk-secret"})
	if got := res.Capabilities.ExecuteCommandProvider.Commands; !slices.Contains(got, editor.CommandServerStatus) || !slices.Contains(got, editor.CommandNewWorkflow) {
		t.Errorf("executeCommandProvider.commands = %v, want %s", got, editor.CommandServerStatus)
	}
	if !res.Capabilities.Workspace.WorkspaceFolders.Supported {
		t.Error("workspace folders not advertised")
	}
	var st editor.ServerStatus
	if err := h.call(editor.MethodStatus, struct{}{}, &st); err != nil {
		t.Fatal(err)
	}
	if !st.Model.Configured || st.Model.Name != "gpt-test" || st.Model.Source != sourceInit {
		t.Errorf("model status = %+v", st.Model)
	}
	if len(st.Workspace) != 1 || st.Workspace[0] != "/tmp/project" {
		t.Errorf("workspace = %v", st.Workspace)
	}
	raw, _ := json.Marshal(st)
	if strings.Contains(string(raw), "sk-secret") {
		t.Error("status leaks the API key")
	}
	// Server → client notification, triggered by a configuration change.
	err := h.client.Notify(context.Background(), "workspace/didChangeConfiguration",
		map[string]any{"settings": map[string]any{"autarch": map[string]any{"model": map[string]string{"name": "other"}}}})
	if err != nil {
		t.Fatal(err)
	}
	n := h.waitNote(editor.MethodStatusChanged)
	var changed editor.ServerStatus
	if err := json.Unmarshal(n.params, &changed); err != nil || changed.Model.Name != "other" {
		t.Errorf("statusChanged = %s (%v)", n.params, err)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit code after shutdown = %d, want 0", code)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	h := newHarness(t, nil)
	h.initialize(nil)
	if err := h.client.Notify(context.Background(), "exit", nil); err != nil {
		t.Fatal(err)
	}
	if code := h.waitExit(); code != 1 {
		t.Errorf("exit code without shutdown = %d, want 1", code)
	}
}

func TestStreamEndWithoutExit(t *testing.T) {
	h := newHarness(t, nil)
	h.initialize(nil)
	h.raw.Close()
	if code := h.waitExit(); code != 1 {
		t.Errorf("exit code on EOF = %d, want 1", code)
	}
}

func TestRequestsBeforeInitializeAndAfterShutdown(t *testing.T) {
	h := newHarness(t, nil)
	if err := h.call(editor.MethodStatus, struct{}{}, nil); rpcCode(err) != jsonrpc2.ServerNotInitialized {
		t.Errorf("before initialize: %v, want ServerNotInitialized", err)
	}
	h.initialize(nil)
	if err := h.call("shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call(editor.MethodStatus, struct{}{}, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Errorf("after shutdown: %v, want InvalidRequest", err)
	}
}

func TestUnknownMethods(t *testing.T) {
	h := newHarness(t, nil)
	h.initialize(nil)
	if err := h.client.Notify(context.Background(), "$/unknownThing", map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	if err := h.client.Notify(context.Background(), "custom/whatever", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call("autarch/noSuchMethod", struct{}{}, nil); rpcCode(err) != jsonrpc2.MethodNotFound {
		t.Errorf("unknown request: %v, want MethodNotFound", err)
	}
	var cmdErr = h.call("workspace/executeCommand", map[string]any{"command": "nope"}, nil)
	if rpcCode(cmdErr) != jsonrpc2.InvalidParams || !strings.Contains(cmdErr.Error(), editor.CommandServerStatus) {
		t.Errorf("unknown command: %v, want InvalidParams listing the commands", cmdErr)
	}
	var st editor.ServerStatus
	if err := h.call("workspace/executeCommand", map[string]any{"command": editor.CommandServerStatus}, &st); err != nil || st.Version != "test" {
		t.Errorf("server still answers: %+v, %v", st, err)
	}
}

func TestNotificationsInOrder(t *testing.T) {
	h := newHarness(t, nil)
	h.initialize(nil)
	const n = 300
	uri := "file:///tmp/project/a.go"
	ctx := context.Background()
	if err := h.client.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 0, "text": "v0", "languageId": "go"}}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		err := h.client.Notify(ctx, "textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": i},
			"contentChanges": []map[string]string{{"text": fmt.Sprintf("v%d", i)}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A request after the notifications is answered after they are handled.
	if err := h.call(editor.MethodStatus, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	text, version, _ := h.srv.docs.get(uri)
	if text != fmt.Sprintf("v%d", n) || version != n {
		t.Fatalf("final document = %q v%d, want v%d", text, version, n)
	}
	h.srv.docs.mu.Lock()
	defer h.srv.docs.mu.Unlock()
	if len(h.srv.docs.applied) != n+1 {
		t.Fatalf("applied %d changes, want %d", len(h.srv.docs.applied), n+1)
	}
	for i, dv := range h.srv.docs.applied {
		if dv.version != i {
			t.Fatalf("change %d applied as version %d: out of order", i, dv.version)
		}
	}
}

func TestCancelRequest(t *testing.T) {
	started := make(chan struct{})
	h := newHarness(t, func(s *Server) {
		s.RegisterRequest("test/block", func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
	})
	h.initialize(nil)
	errc := make(chan error, 1)
	go func() { errc <- h.call("test/block", struct{}{}, nil) }()
	<-started
	// The client's first call was initialize (id 1), then status-free: test/block is id 2.
	if err := h.client.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": 2}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if rpcCode(err) != codeRequestCancelled {
			t.Errorf("cancelled call: %v, want RequestCancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not reach the handler")
	}
}

func TestRequestsRunConcurrently(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	h := newHarness(t, func(s *Server) {
		s.RegisterRequest("test/wait", func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			select {
			case <-release:
				return "released", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
		s.RegisterRequest("test/release", func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(release)
			return "ok", nil
		})
	})
	h.initialize(nil)
	errc := make(chan error, 1)
	go func() { errc <- h.call("test/wait", struct{}{}, nil) }()
	<-started // test/wait now blocks until test/release runs beside it
	if err := h.call("test/release", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

func TestPanickingHandler(t *testing.T) {
	h := newHarness(t, func(s *Server) {
		s.RegisterRequest("test/panic", func(context.Context, json.RawMessage) (any, error) {
			var m map[string]int
			m["boom"]++ // nil map write
			return nil, nil
		})
		s.methods["test/panicNote"] = method{kind: notification, fn: func(*Server, context.Context, json.RawMessage) (any, error) { panic("note boom") }}
	})
	h.initialize(nil)
	err := h.call("test/panic", struct{}{}, nil)
	if rpcCode(err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "test/panic") {
		t.Errorf("panic: %v, want InternalError naming the method", err)
	}
	if err := h.client.Notify(context.Background(), "test/panicNote", nil); err != nil {
		t.Fatal(err)
	}
	var st editor.ServerStatus
	if err := h.call(editor.MethodStatus, struct{}{}, &st); err != nil || st.Version != "test" {
		t.Fatalf("after panic: %v", err)
	}
	if code := h.shutdownExit(); code != 0 {
		t.Errorf("exit = %d", code)
	}
}

func TestEnvironmentFallbacks(t *testing.T) {
	h := newHarness(t, nil)
	h.getenv["OPENAI_API_KEY"] = "sk-env"
	h.getenv["OPENAI_BASE_URL"] = "http://localhost:11434/v1"
	h.getenv["AUTARCH_MODEL"] = "qwen"
	h.initialize(editor.Settings{Model: editor.ModelSettings{Name: "from-editor"}})
	var st editor.ServerStatus
	if err := h.call(editor.MethodStatus, struct{}{}, &st); err != nil {
		t.Fatal(err)
	}
	want := editor.ModelStatus{Configured: true, BaseURL: "http://localhost:11434/v1", Name: "from-editor", HasAPIKey: true, Source: sourceInit}
	if st.Model != want {
		t.Errorf("model = %+v, want %+v", st.Model, want)
	}
}

// TestAPIKey: the key comes from autarch/setApiKey or the environment,
// never from settings payloads, and is never sent back.
func TestAPIKey(t *testing.T) {
	tests := []struct {
		name    string
		env     string
		init    editor.Settings
		request *editor.SetAPIKeyParams
		wantKey string
	}{
		{name: "environment", env: "sk-env", wantKey: "sk-env"},
		{name: "initializationOptions ignored", init: editor.Settings{APIKey: "sk-init"}, wantKey: ""},
		{name: "request", request: &editor.SetAPIKeyParams{APIKey: "sk-req"}, wantKey: "sk-req"},
		{name: "request over environment", env: "sk-env", request: &editor.SetAPIKeyParams{APIKey: "sk-req"}, wantKey: "sk-req"},
		{name: "empty request falls back", env: "sk-env", request: &editor.SetAPIKeyParams{}, wantKey: "sk-env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var got string
			h := newHarness(t, func(s *Server) {
				s.cfg.Settings = func(_ editor.ModelSettings, key string) { mu.Lock(); got = key; mu.Unlock() }
			})
			h.getenv["OPENAI_API_KEY"] = tt.env
			h.initialize(tt.init)
			if tt.request != nil {
				var st editor.ServerStatus
				if err := h.call(editor.MethodSetAPIKey, tt.request, &st); err != nil {
					t.Fatal(err)
				}
				if b, _ := json.Marshal(st); strings.Contains(string(b), "sk-") {
					t.Errorf("status leaks the key: %s", b)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if got != tt.wantKey {
				t.Errorf("model key = %q, want %q", got, tt.wantKey)
			}
		})
	}
}

// writeFrame writes raw bytes as one LSP frame.
func writeFrame(w io.Writer, body string) error {
	_, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

func TestGarbageOnTheStream(t *testing.T) {
	srv := New(Config{Version: "test", Logger: quietLogger(), Getenv: func(string) string { return "" }})
	serverEnd, clientEnd := net.Pipe()
	exit := make(chan int, 1)
	go func() { exit <- srv.Serve(context.Background(), serverEnd) }()
	defer clientEnd.Close()
	responses := make(chan string, 10)
	go func() {
		r := newStream(clientEnd, quietLogger())
		for {
			body, _, err := readFrame(r.in, quietLogger())
			if err != nil {
				close(responses)
				return
			}
			responses <- string(body)
		}
	}()
	steps := []struct {
		name string
		send func() error
		want string
	}{
		{"garbage then initialize", func() error {
			if _, err := io.WriteString(clientEnd, "this is not a header\r\n\x00\x01\xff junk\n"); err != nil {
				return err
			}
			return writeFrame(clientEnd, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}`)
		}, `"id":1,"result"`},
		{"invalid JSON body", func() error { return writeFrame(clientEnd, `{"jsonrpc":"2.0","id":2,"method":`) }, `-32700`},
		{"header glued to garbage", func() error {
			body := `{"jsonrpc":"2.0","id":3,"method":"autarch/status","params":{}}`
			_, err := fmt.Fprintf(clientEnd, "xxxContent-Length: %d\r\n\r\n%s", len(body), body)
			return err
		}, `"id":3,"result"`},
		{"bad content length", func() error {
			if _, err := io.WriteString(clientEnd, "Content-Length: abc\r\n\r\n"); err != nil {
				return err
			}
			return writeFrame(clientEnd, `{"jsonrpc":"2.0","id":4,"method":"autarch/status","params":{}}`)
		}, `"id":4,"result"`},
	}
	for _, st := range steps {
		if err := st.send(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		select {
		case got := <-responses:
			if !strings.Contains(got, st.want) {
				t.Errorf("%s: response %s, want %s", st.name, got, st.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no response", st.name)
		}
	}
}
