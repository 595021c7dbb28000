package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/tools"
)

// TestACPEndToEnd drives `autarch acp` with the official ACP TypeScript
// SDK's client (e2e/acp/run.mjs): discuss and workflow turns against the
// scripted model, then session/load after the process was killed, every
// message validated against the SDK's JSON schema. It is skipped only
// where node is missing (CI has it); the SDK comes from `npm ci`.
func TestACPEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds autarch and runs node: not in -short")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the ACP e2e needs the official SDK's client")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the ACP SDK is not installed: run `npm ci` at the repository root (make node-deps): %v", err)
	}
	bin := buildBinary(t)
	scripted := filepath.Join(t.TempDir(), "autarch-scripted")
	if out, err := exec.Command("go", "build", "-o", scripted, "../autarch-scripted").CombinedOutput(); err != nil {
		t.Fatalf("go build autarch-scripted: %v\n%s", err, out)
	}
	// run.mjs bounds itself (15 minutes); go test's -timeout may come
	// first: the run (node, autarch, the scripted model: one process
	// group) is killed a minute before, so that its output is still told.
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", "acp", "run.mjs"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AUTARCH_BIN="+bin, "AUTARCH_SCRIPTED_BIN="+scripted)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("e2e/acp/run.mjs: %v", err)
	}
}

// TestACPServesUntilEOF: autarch acp answers initialize on stdout (one
// JSON-RPC line, nothing else there) and exits 0 when the client closes
// stdin.
func TestACPServesUntilEOF(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runMain(context.Background(), stdio{in: inR, out: outW, err: &errb}, []string{"acp", "--log", "", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"})
		outW.Close()
	}()
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outR).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer: %v\n%s", err, errb.String())
	}
	var res struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion   int `json:"protocolVersion"`
			AgentCapabilities struct {
				LoadSession bool `json:"loadSession"`
			} `json:"agentCapabilities"`
			AuthMethods []any `json:"authMethods"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &res); err != nil {
		t.Fatalf("stdout is not a JSON-RPC response: %v\n%s", err, line)
	}
	if res.ID != 1 || res.Result.ProtocolVersion != 1 || !res.Result.AgentCapabilities.LoadSession || len(res.Result.AuthMethods) != 0 {
		t.Errorf("initialize answered %+v", res)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after stdin closed: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("autarch acp did not exit when stdin closed")
	}
}

func TestLocalEndpoint(t *testing.T) {
	for url, want := range map[string]bool{
		"http://localhost:11434/v1": true, "http://127.0.0.1:8080/v1": true, "http://[::1]:8000/v1": true,
		"https://api.openai.com/v1": false, "": false, "http://10.0.0.5/v1": false, "::bad": false,
	} {
		if got := localEndpoint(url); got != want {
			t.Errorf("localEndpoint(%q) = %v, want %v", url, got, want)
		}
	}
}

// TestClientMCPServersJoinLater: servers a later ACP session adds to the
// folder's set join the agents' tools the next time they are listed,
// without restarting the servers already running.
func TestClientMCPServersJoinLater(t *testing.T) {
	bin := everythingBin(t)
	var mu sync.Mutex
	set := map[string]tools.MCPServer{"first": {Type: "stdio", Command: bin}}
	servers := func() map[string]tools.MCPServer {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(set)
	}
	c := &clientMCP{servers: servers, dir: t.TempDir(), warn: func(m string) { t.Log(m) }, running: map[string]*clientServer{}}
	t.Cleanup(c.close)
	names := func() []string {
		var out []string
		for _, tool := range c.tools(context.Background(), "discussion") {
			out = append(out, tool.Name())
		}
		return out
	}
	if got := names(); !slices.Contains(got, "mcp_first_echo") || slices.Contains(got, "mcp_second_echo") {
		t.Fatalf("tools with the first session's server: %v", got)
	}
	first := c.running["first"]
	mu.Lock()
	set["second"] = tools.MCPServer{Type: "stdio", Command: bin}
	mu.Unlock()
	if got := names(); !slices.Contains(got, "mcp_first_echo") || !slices.Contains(got, "mcp_second_echo") {
		t.Errorf("tools once a later session added a server: %v", got)
	}
	if c.running["first"] != first || len(c.running) != 2 {
		t.Errorf("servers running: %v, want the first one kept and the second one added", c.running)
	}
}

// acpClient speaks ACP's JSON-RPC lines to autarch acp, answering its
// permission requests with "cancelled".
type acpClient struct {
	t     *testing.T
	w     io.Writer
	lines chan []byte
	id    int
}

func newACPClient(t *testing.T, w io.Writer, r io.Reader) *acpClient {
	c := &acpClient{t: t, w: w, lines: make(chan []byte, 256)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			c.lines <- slices.Clone(sc.Bytes())
		}
		close(c.lines)
	}()
	return c
}

// call sends a request and returns its result, or its error's message.
func (c *acpClient) call(method string, params any) (json.RawMessage, string) {
	c.t.Helper()
	c.id++
	c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("%s: autarch acp closed stdout", method)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(line, &msg); err != nil {
				c.t.Fatalf("%s: not JSON-RPC: %s", method, line)
			}
			switch {
			case msg.Method != "" && msg.ID != nil:
				c.send(map[string]any{"jsonrpc": "2.0", "id": *msg.ID, "result": map[string]any{"outcome": map[string]any{"outcome": "cancelled"}}})
			case msg.Method == "" && msg.ID != nil && *msg.ID == c.id && msg.Error != nil:
				return nil, msg.Error.Message
			case msg.Method == "" && msg.ID != nil && *msg.ID == c.id:
				return msg.Result, ""
			}
		case <-timeout:
			c.t.Fatalf("%s: no answer in 60s", method)
		}
	}
}

func (c *acpClient) send(msg map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("writing to autarch acp: %v", err)
	}
}

// newSession opens a session of repo passing servers; it returns its id.
func (c *acpClient) newSession(repo string, servers []map[string]any) string {
	c.t.Helper()
	res, msg := c.call("session/new", map[string]any{"cwd": repo, "mcpServers": servers})
	var out struct {
		SessionID string `json:"sessionId"`
	}
	if msg != "" || json.Unmarshal(res, &out) != nil || out.SessionID == "" {
		c.t.Fatalf("session/new: %s %s", res, msg)
	}
	return out.SessionID
}

// prompt runs a discussion turn: its agent lists its tools, which starts
// the MCP servers (the model, refusing here, then fails the turn).
func (c *acpClient) prompt(id string) {
	c.t.Helper()
	c.call("session/prompt", map[string]any{"sessionId": id, "prompt": []map[string]any{{"type": "text", "text": "What does main do?"}}})
}

func (c *acpClient) closeSession(id string) {
	c.t.Helper()
	if res, msg := c.call("session/close", map[string]any{"sessionId": id}); msg != "" {
		c.t.Fatalf("session/close: %s %s", res, msg)
	}
}

// stubbornServer is server-everything in a node process that outlives
// its stdin (as servers with timers, or wrappers, may): only a stop
// (SIGTERM once stdin closed) ends it. Its command line names the
// returned marker.
func stubbornServer(t *testing.T, name string) (server map[string]any, marker string) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP test servers need it")
	}
	script, err := filepath.EvalSymlinks(everythingBin(t))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"name": name, "command": node, "args": []string{"--import", script, "-e", "setInterval(() => {}, 1e9)"}, "env": []any{}}, script
}

// proc is a process: its id and start time (ids are reused).
type proc struct{ pid, start string }

// procStat is a process's state and start time from /proc (ok false: gone).
func procStat(pid string) (state, ppid, start string, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return "", "", "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return "", "", "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return "", "", "", false
	}
	return f[0], f[1], f[19], true
}

// descendants are the processes under root whose command line holds
// marker.
func descendants(t *testing.T, root int, marker string) []proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	parent := map[string]string{}
	for _, e := range entries {
		if _, ppid, _, ok := procStat(e.Name()); ok {
			parent[e.Name()] = ppid
		}
	}
	under := func(pid string) bool {
		for p, n := parent[pid], 0; p != "" && n < 64; p, n = parent[p], n+1 {
			if p == strconv.Itoa(root) {
				return true
			}
		}
		return false
	}
	var out []proc
	for pid := range parent {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		if !under(pid) || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		if _, _, start, ok := procStat(pid); ok {
			out = append(out, proc{pid, start})
		}
	}
	return out
}

// running are the processes of ps still running (a zombie has ended).
func running(ps []proc) []proc {
	var out []proc
	for _, p := range ps {
		if state, _, start, ok := procStat(p.pid); ok && start == p.start && state != "Z" {
			out = append(out, p)
		}
	}
	return out
}

func (p proc) String() string {
	cmdline, _ := os.ReadFile(filepath.Join("/proc", p.pid, "cmdline"))
	state, ppid, _, _ := procStat(p.pid)
	return fmt.Sprintf("%s (%s, parent %s: %s)", p.pid, state, ppid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '}))
}

// killLeft kills what a failed test left running (the processes it saw).
func killLeft(ps *[]proc) {
	for _, p := range running(*ps) {
		if n, err := strconv.Atoi(p.pid); err == nil {
			syscall.Kill(n, syscall.SIGKILL)
		}
	}
}

// refusingModel is a model endpoint that refuses every request at once:
// a discussion turn lists its tools (starting the MCP servers), then ends.
func refusingModel(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"no model in this test"}}`, http.StatusBadRequest)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// acpRepo is a git repository with one commit, and a home of its own for
// autarch (no user MCP servers).
func acpRepo(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// TestACPStopsClientMCPServers: the MCP server processes a folder's
// sessions started stay while an open session that passed them does, stop
// when the last of them closes, and stop when the client closes stdin
// (autarch acp served in this process: its children are this test's).
func TestACPStopsClientMCPServers(t *testing.T) {
	repo := acpRepo(t)
	server, marker := stubbornServer(t, "stubborn")
	group := []map[string]any{server}
	model := refusingModel(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runMain(context.Background(), stdio{in: inR, out: outW, err: &errb}, []string{"acp", "--log", "", "--base-url", model, "--model", "m"})
		outW.Close()
	}()
	var seen []proc
	t.Cleanup(func() { killLeft(&seen) })
	c := newACPClient(t, inW, outR)
	c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	first, second := c.newSession(repo, group), c.newSession(repo, group)
	c.prompt(first)
	started := descendants(t, os.Getpid(), marker)
	seen = append(seen, started...)
	if len(started) == 0 {
		t.Fatalf("no MCP server process was started by the discussion turn\n%s", errb.String())
	}
	c.closeSession(first)
	if left := running(started); len(left) != len(started) {
		t.Errorf("closing one of the two sessions that passed the server stopped %d of its %d processes: the other session still uses it", len(started)-len(left), len(started))
	}
	c.closeSession(second)
	if left := running(started); len(left) > 0 {
		t.Errorf("processes %v still run after the last session that passed the server closed", left)
	}
	third := c.newSession(repo, group)
	c.prompt(third)
	again := descendants(t, os.Getpid(), marker)
	seen = append(seen, again...)
	if len(again) == 0 {
		t.Fatal("a session passing the server again did not start it anew")
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after stdin closed", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("autarch acp did not exit when stdin closed")
	}
	if left := running(again); len(left) > 0 {
		t.Errorf("processes %v still run after autarch acp ended (stdin closed)", left)
	}
}

// TestACPStopsMCPServersOnSignal: the autarch acp binary stops the MCP
// servers its sessions started when told to exit (SIGTERM, SIGINT), a
// session still open.
func TestACPStopsMCPServersOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds autarch: not in -short")
	}
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			repo := acpRepo(t)
			server, marker := stubbornServer(t, "stubborn")
			cmd := exec.Command(bin, "acp", "--log", "", "--base-url", refusingModel(t), "--model", "m")
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var seen []proc
			t.Cleanup(func() {
				cmd.Process.Kill()
				killLeft(&seen)
			})
			c := newACPClient(t, in, out)
			c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
			c.prompt(c.newSession(repo, []map[string]any{server}))
			seen = descendants(t, cmd.Process.Pid, marker)
			if len(seen) == 0 {
				t.Fatalf("no MCP server process was started by the discussion turn\n%s", errb.String())
			}
			cmd.Process.Signal(sig)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatalf("autarch acp did not exit on %s", sig)
			}
			if left := running(seen); len(left) > 0 {
				t.Errorf("processes %v still run after autarch acp exited on %s\n%s", left, sig, errb.String())
			}
		})
	}
}
