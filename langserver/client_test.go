package langserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// fakeEnv makes the test binary a fake language server (TestMain): "hang"
// answers initialize and never a request, "crash" exits on a request,
// "mute" never answers initialize, "ok" answers every request with null.
const fakeEnv = "AUTARCH_FAKE_LANGSERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeEnv); mode != "" {
		fakeServer(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) {
	if mode == "mute" {
		select {}
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(stdio{}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{}}, nil
		case "shutdown", "initialized", "exit", "textDocument/didOpen", "textDocument/didChange":
			if req.Method() == "exit" {
				os.Exit(0)
			}
			return nil, nil
		}
		switch mode {
		case "hang":
			select {}
		case "crash":
			os.Exit(2)
		}
		return nil, nil
	})
	<-conn.Done()
}

type stdio struct{}

func (stdio) Read(b []byte) (int, error)  { return os.Stdin.Read(b) }
func (stdio) Write(b []byte) (int, error) { return os.Stdout.Write(b) }
func (stdio) Close() error                { return nil }

// fakeStarter runs the test binary as a fake server in mode (unconfined:
// the tools' starter, tested there, adds the sandbox).
func fakeStarter(mode *string) Starter {
	return func(ctx context.Context, dir string, argv, env []string) (*exec.Cmd, error) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), fakeEnv+"="+*mode)
		return cmd, nil
	}
}

// TestCrashOrHangIsAResultAndTheNextCallRestarts: a server that crashes,
// hangs on a request or never initializes gives an UnavailableError that
// says so within the timeout, and the next call starts it again.
func TestCrashOrHangIsAResultAndTheNextCallRestarts(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode, want string
	}{
		{"hang", "did not answer textDocument/definition within"},
		{"crash", "stopped while answering textDocument/definition"},
		{"mute", "did not answer initialize within"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			pool := NewPool(Options{StartTimeout: 3 * time.Second, CallTimeout: time.Second})
			t.Cleanup(func() { pool.Close(context.Background()) })
			srv := Server{Name: "fake", Command: []string{self}, Languages: map[string]string{".fk": "fake"}}
			c := pool.Client(t.TempDir(), srv)
			mode := tc.mode
			start := fakeStarter(&mode)
			if tc.mode != "mute" {
				// The first request waits for the workspace to load (StartTimeout):
				// a healthy answer first, then the failing one on the call timeout.
				healthy := "ok"
				if err := c.Call(context.Background(), fakeStarter(&healthy), "textDocument/hover", nil, nil); err != nil {
					t.Fatalf("healthy call: %v", err)
				}
				c.Shutdown(context.Background())
			}
			began := time.Now()
			var raw json.RawMessage
			err := c.Call(context.Background(), start, "textDocument/definition", map[string]any{}, &raw)
			var ue *UnavailableError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "starts again on the next call") {
				t.Fatalf("err = %v, want an UnavailableError with %q", err, tc.want)
			}
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("the failure took %s", d)
			}
			before := c.Starts()
			mode = "ok"
			if err := c.Call(context.Background(), start, "textDocument/definition", map[string]any{}, &raw); err != nil {
				t.Fatalf("call after the failure: %v", err)
			}
			if c.Starts() != before+1 {
				t.Errorf("starts = %d after the failure, want %d (restarted)", c.Starts(), before+1)
			}
		})
	}
}

// TestNotInstalled: a server not on PATH says how to install it.
func TestNotInstalled(t *testing.T) {
	srv := Server{Name: "nols", Command: []string{"autarch-no-such-langserver"}, Install: "npm install -g nols"}
	c := NewPool(Options{}).Client(t.TempDir(), srv)
	err := c.Call(context.Background(), fakeStarter(new(string)), "initialize", nil, nil)
	var ni *NotInstalledError
	if !errors.As(err, &ni) || !strings.Contains(err.Error(), "npm install -g nols") {
		t.Fatalf("err = %v", err)
	}
	if msg := NoServerMessage(Known(), "x.xyz"); !strings.HasPrefix(msg, "no language server for .xyz files; install") || !strings.Contains(msg, "gopls") {
		t.Errorf("no server message = %q", msg)
	}
}
