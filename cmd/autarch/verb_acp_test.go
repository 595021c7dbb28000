package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	cmd := exec.Command(node, filepath.Join(root, "e2e", "acp", "run.mjs"))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "AUTARCH_BIN="+bin, "AUTARCH_SCRIPTED_BIN="+scripted)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("e2e/acp/run.mjs: %v", err)
	}
}

func TestACPUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"acp", "extra"}, `unexpected argument "extra" (acp takes only flags; the client sends each session's folder)`},
		{[]string{"acp", "--log-level", "loud"}, `bad log level "loud"`},
		{[]string{"acp", "--nope"}, "flag provided but not defined: -nope"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
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
	c := &clientMCP{servers: servers, dir: t.TempDir(), warn: func(m string) { t.Log(m) }, started: map[string]bool{}}
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
	mu.Lock()
	set["second"] = tools.MCPServer{Type: "stdio", Command: bin}
	mu.Unlock()
	if got := names(); !slices.Contains(got, "mcp_first_echo") || !slices.Contains(got, "mcp_second_echo") {
		t.Errorf("tools once a later session added a server: %v", got)
	}
	if n := len(c.batches); n != 2 {
		t.Errorf("%d server managers started, want 2 (the first server kept running)", n)
	}
}
