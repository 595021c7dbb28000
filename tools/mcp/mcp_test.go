package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/internal/testkit"
	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/tools/mcp/mcptest"
	"github.com/autarch-dev/autarch/workspace/trust"
)

// TestMain doubles as a real MCP server (the go-sdk's, over stdio) with
// tools that misbehave: crash exits the process, hang never answers.
func TestMain(m *testing.M) {
	if os.Getenv("AUTARCH_MCP_TEST_SERVER") == "1" {
		serveMisbehaving()
		return
	}
	os.Exit(m.Run())
}

type noArgs struct{}

func serveMisbehaving() {
	s := sdk.NewServer(&sdk.Implementation{Name: "misbehaving", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "exits"}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "never answers"}, func(ctx context.Context, _ *sdk.CallToolRequest, _ noArgs) (*sdk.CallToolResult, any, error) {
		<-ctx.Done()
		time.Sleep(time.Hour)
		return nil, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "its process id", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "pid asked")
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(os.Getpid())}}}, nil, nil
	})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "its environment"}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
	})
	// grow changes the tool list at runtime: it adds "grown" and removes
	// "env"; the server then sends notifications/tools/list_changed.
	sdk.AddTool(s, &sdk.Tool{Name: "grow", Description: "changes the tool list"}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
		sdk.AddTool(s, &sdk.Tool{Name: "grown", Description: "added at runtime"}, func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grown answers"}}}, nil, nil
		})
		s.RemoveTools("env")
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "grew"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// nodeBin is the pinned MCP server name (mcptest.Server).
func nodeBin(t *testing.T, name string) string {
	t.Helper()
	return mcptest.Server(t, name)
}

// userServers writes a user mcp.json and returns a manager over it.
func userServers(t *testing.T, servers map[string]tools.MCPServer) *Manager {
	t.Helper()
	m, err := NewManager(Options{UserFile: mcptest.UserFile(t, servers), Dir: t.TempDir(), Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func misbehaving(t *testing.T, timeout int) tools.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return tools.MCPServer{Command: exe, Env: map[string]string{"AUTARCH_MCP_TEST_SERVER": "1"}, Timeout: timeout}
}

// harness runs calls through the engine pipeline with one role's tools.
type harness struct {
	t    *testing.T
	e    *tools.Engine
	s    *tools.Session
	ui   *testkit.Editor
	reg  *tools.Registry
	role string
}

func newHarness(t *testing.T, m *Manager, role string, mode tools.Mode) *harness {
	t.Helper()
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Register(t.Context(), role, reg); err != nil {
		t.Fatal(err)
	}
	ui := &testkit.Editor{T: t, Verdict: editor.Verdict{Decision: editor.DecisionApprove}}
	s, err := tools.NewSession(tools.SessionConfig{Root: t.TempDir(), Role: role, Mode: mode, Editor: ui})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &harness{t: t, e: tools.NewEngine(reg, nil, slog.New(slog.DiscardHandler)), s: s, ui: ui, reg: reg, role: role}
}

func (h *harness) call(name, args string) tools.Result {
	h.t.Helper()
	res, err := h.e.Call(h.t.Context(), h.s, name, json.RawMessage(args))
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

func TestEverythingOverStdio(t *testing.T) {
	m := userServers(t, map[string]tools.MCPServer{"everything": {Command: nodeBin(t, "mcp-server-everything")}})
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	for _, want := range []string{"mcp_everything_echo", "mcp_everything_get_sum", "mcp_everything_get_tiny_image"} {
		if !h.reg.Has(want) {
			t.Errorf("%s missing from %v", want, h.reg.Names())
		}
	}
	tests := []struct {
		name, tool, args string
		want             string
		failed           bool
	}{
		{"call with arguments", "mcp_everything_echo", `{"message": "hi", "reason": "r"}`, "Echo: hi", false},
		{"numbers", "mcp_everything_get_sum", `{"a": 2, "b": 40, "reason": "r"}`, "42", false},
		{"image described", "mcp_everything_get_tiny_image", `{"reason": "r"}`, "[image: image/png,", false},
		{"missing argument", "mcp_everything_echo", `{"reason": "r"}`, "message", true},
		{"wrong type", "mcp_everything_get_sum", `{"a": "two", "b": 1, "reason": "r"}`, `want \"number\"`, true},
		{"missing reason", "mcp_everything_echo", `{"message": "hi"}`, "reason", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := h.call(tt.tool, tt.args)
			if !strings.Contains(res.Output, tt.want) || res.Failed != tt.failed {
				t.Errorf("%s = %s (failed %v), want %q (failed %v)", tt.tool, res.Output, res.Failed, tt.want, tt.failed)
			}
		})
	}
	if state, _ := m.servers["everything"].State(); state != StateRunning {
		t.Errorf("state = %s", state)
	}
}

func TestEverythingOverStreamableHTTP(t *testing.T) {
	bin := nodeBin(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	testkit.CheckFor(t, 20*time.Second, 100*time.Millisecond, func() error {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return fmt.Errorf("server-everything does not listen on %d: %w", port, err)
		}
		return c.Close()
	})
	m := userServers(t, map[string]tools.MCPServer{"web": {Type: "http", URL: url, Headers: map[string]string{"X-Test": "1"}}})
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	if res := h.call("mcp_web_echo", `{"message": "over http", "reason": "r"}`); !strings.Contains(res.Output, "Echo: over http") {
		t.Errorf("echo = %s", res.Output)
	}
}

func TestFilesystemServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := userServers(t, map[string]tools.MCPServer{"fs": {Command: nodeBin(t, "mcp-server-filesystem"), Args: []string{dir}}})
	h := newHarness(t, m, "research", tools.ModeYolo)
	res := h.call("mcp_fs_read_text_file", fmt.Sprintf(`{"path": %q, "reason": "r"}`, filepath.Join(dir, "notes.txt")))
	if !strings.Contains(res.Output, "remember the milk") {
		t.Errorf("read = %s", res.Output)
	}
	if h.reg.Has("mcp_fs_write_file") {
		t.Errorf("a read-only role got write_file: %v", h.reg.Names())
	}
}

func TestReadOnlyFiltering(t *testing.T) {
	m := userServers(t, map[string]tools.MCPServer{"everything": {Command: nodeBin(t, "mcp-server-everything")}})
	for _, tt := range []struct {
		role         string
		echo, toggle bool // echo is annotated readOnlyHint; toggle-simulated-logging is not
	}{
		{"pulsing", true, true}, {"preflight", true, true},
		{"discussion", true, false}, {"scoping", true, false}, {"research", true, false}, {"plan", true, false}, {"review", true, false},
		{"swarm", true, false},
	} {
		t.Run(tt.role, func(t *testing.T) {
			names := toolNames(t, m, tt.role)
			if slices.Contains(names, "mcp_everything_echo") != tt.echo || slices.Contains(names, "mcp_everything_toggle_simulated_logging") != tt.toggle {
				t.Errorf("%s tools = %v", tt.role, names)
			}
		})
	}
}

func TestSensitiveConfirmation(t *testing.T) {
	m := userServers(t, map[string]tools.MCPServer{"everything": {Command: nodeBin(t, "mcp-server-everything")}})
	h := newHarness(t, m, "pulsing", tools.ModeConfirmSensitive)
	if res := h.call("mcp_everything_echo", `{"message": "hi", "reason": "r"}`); len(h.ui.Asked()) != 1 || !strings.Contains(res.Output, "Echo: hi") {
		t.Errorf("approved: asked %d, %s", len(h.ui.Asked()), res.Output)
	}
	h.ui.SetVerdict(editor.DecisionReject)
	if res := h.call("mcp_everything_echo", `{"message": "no", "reason": "r"}`); len(h.ui.Asked()) != 2 || strings.Contains(res.Output, "Echo: no") {
		t.Errorf("rejected: asked %d, %s", len(h.ui.Asked()), res.Output)
	}
}

func TestMisbehavingServers(t *testing.T) {
	m := userServers(t, map[string]tools.MCPServer{"bad": misbehaving(t, 2)})
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	first := h.call("mcp_bad_pid", `{"reason": "r"}`).Output

	start := time.Now()
	if res := h.call("mcp_bad_hang", `{"reason": "r"}`); !res.Failed || !strings.Contains(res.Output, "did not answer hang within 2s") {
		t.Errorf("hang = %s", res.Output)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hang took %s", d)
	}
	if res := h.call("mcp_bad_pid", `{"reason": "r"}`); res.Output != first {
		t.Errorf("after a timeout the server answers %s, want the same process %s", res.Output, first)
	}
	if res := h.call("mcp_bad_crash", `{"reason": "r"}`); !res.Failed {
		t.Errorf("crash = %s", res.Output)
	}
	waitState(t, m.servers["bad"], StateExited)
	second := h.call("mcp_bad_pid", `{"reason": "r"}`)
	if second.Failed || second.Output == first {
		t.Errorf("after a crash: %s (first process %s): not restarted", second.Output, first)
	}
	h.call("mcp_bad_crash", `{"reason": "r"}`)
	waitState(t, m.servers["bad"], StateExited)
	if res := h.call("mcp_bad_pid", `{"reason": "r"}`); !res.Failed || !strings.Contains(res.Output, "not restarting") {
		t.Errorf("second crash = %s", res.Output)
	}
}

func waitState(t *testing.T, s *Server, want string) {
	t.Helper()
	testkit.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
		if st, err := s.State(); st != want {
			return fmt.Errorf("state = %s (%v), want %s", st, err, want)
		}
		return nil
	})
}

func TestScrubbedEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("AUTARCH_API_KEY", "secret")
	srv := misbehaving(t, 10)
	srv.Env["CONFIGURED"] = "yes"
	m := userServers(t, map[string]tools.MCPServer{"bad": srv})
	h := newHarness(t, m, "pulsing", tools.ModeYolo)
	out := h.call("mcp_bad_env", `{"reason": "r"}`).Output
	if strings.Contains(out, "secret") || !strings.Contains(out, "CONFIGURED=yes") {
		t.Errorf("environment = %s", out)
	}
}

func TestUntrustedRepositoryStartsNothing(t *testing.T) {
	repo := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	write := func(name, content string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(tools.MCPFile, fmt.Sprintf(`{"mcpServers": {"planted": {"command": "sh", "args": ["-c", "touch %s"]}}}`, marker))
	write(tools.ConfigFile, fmt.Sprintf("mcp:\n  servers:\n    yaml: {command: sh, args: [-c, 'touch %s']}\n", marker))
	store := trust.At(filepath.Join(t.TempDir(), "trusted.json"))
	for _, tt := range []struct {
		name    string
		trusted bool
		servers []string
	}{
		{"untrusted", false, nil},
		{"trusted", true, []string{"planted", "yaml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.trusted {
				cfg, err := trust.Read(repo)
				if err != nil {
					t.Fatal(err)
				}
				if err := store.Trust(cfg); err != nil {
					t.Fatal(err)
				}
			}
			p, err := tools.LoadProject(repo, store)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewManager(Options{Project: p})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			var names []string
			for _, s := range m.Servers() {
				names = append(names, s.Name())
			}
			if !slices.Equal(names, tt.servers) {
				t.Errorf("servers = %v, want %v", names, tt.servers)
			}
			if !tt.trusted {
				if !slices.Equal(m.Refused, []string{"planted", "yaml"}) || !strings.Contains(p.Untrusted(), "MCP server planted") {
					t.Errorf("refused = %v; %s", m.Refused, p.Untrusted())
				}
				m.Tools(t.Context(), "pulsing")
				if _, err := os.Stat(marker); err == nil {
					t.Fatal("an untrusted server was started")
				}
			}
		})
	}
}

func TestToolName(t *testing.T) {
	for _, tt := range []struct{ server, tool, want string }{
		{"everything", "echo", "mcp_everything_echo"},
		{"my-server", "get-sum", "mcp_my_server_get_sum"},
		{"a.b", "x/y z", "mcp_a_b_x_y_z"},
		{"s", strings.Repeat("x", 80), "mcp_s_" + strings.Repeat("x", 58)},
	} {
		if got := toolName(tt.server, tt.tool); got != tt.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
}

// alive reports a process that exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// TestWrapperChildrenStopped: a server started through a wrapper (sh -c
// here, npx in practice) leaves no process behind when it is closed or
// crashes: the wrapper's children go with it.
func TestWrapperChildrenStopped(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, end := range []string{"close", "crash"} {
		t.Run(end, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			srv := tools.MCPServer{Command: "/bin/sh", Args: []string{"-c", `sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$PID_FILE"; exec "$SERVER"`},
				Env: map[string]string{"AUTARCH_MCP_TEST_SERVER": "1", "PID_FILE": pidFile, "SERVER": exe}, Timeout: 10}
			m := userServers(t, map[string]tools.MCPServer{"wrapped": srv})
			h := newHarness(t, m, "pulsing", tools.ModeYolo)
			if res := h.call("mcp_wrapped_pid", `{"reason": "r"}`); res.Failed {
				t.Fatalf("pid = %s", res.Output)
			}
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			var child int
			fmt.Sscan(string(data), &child)
			if !alive(child) {
				t.Fatalf("the wrapper's child %d is not running", child)
			}
			if end == "close" {
				m.Close()
			} else {
				h.call("mcp_wrapped_crash", `{"reason": "r"}`)
				waitState(t, m.servers["wrapped"], StateExited)
			}
			testkit.CheckFor(t, 10*time.Second, 20*time.Millisecond, func() error {
				if alive(child) {
					return fmt.Errorf("after %s the wrapper's child %d still runs", end, child)
				}
				return nil
			})
		})
	}
}
