package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildBinary builds autarch once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "autarch")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lspPeer speaks framed JSON-RPC to a subprocess.
type lspPeer struct {
	t  *testing.T
	w  io.Writer
	r  *bufio.Reader
	id int
}

func (p *lspPeer) send(msg map[string]any) {
	p.t.Helper()
	msg["jsonrpc"] = "2.0"
	body, _ := json.Marshal(msg)
	if _, err := fmt.Fprintf(p.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		p.t.Fatal(err)
	}
}

func (p *lspPeer) read() map[string]any {
	p.t.Helper()
	length := 0
	for {
		line, err := p.r.ReadString('\n')
		if err != nil {
			p.t.Fatalf("reading header: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(p.r, body); err != nil {
		p.t.Fatal(err)
	}
	var msg map[string]any
	if err := json.Unmarshal(body, &msg); err != nil {
		p.t.Fatalf("bad body %s: %v", body, err)
	}
	return msg
}

// request sends a request and returns its response, collecting any
// notifications that arrive first.
func (p *lspPeer) request(method string, params any) (map[string]any, []map[string]any) {
	p.id++
	p.send(map[string]any{"id": p.id, "method": method, "params": params})
	var notes []map[string]any
	for {
		msg := p.read()
		if id, ok := msg["id"].(float64); ok && int(id) == p.id && msg["method"] == nil {
			return msg, notes
		}
		notes = append(notes, msg)
	}
}

func TestServeSubprocess(t *testing.T) {
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--log", filepath.Join(t.TempDir(), "serve.log"))
	cmd.Env = append(os.Environ(), "AUTARCH_MODEL=test-model", "OPENAI_API_KEY=sk-test-secret")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspPeer{t: t, w: stdin, r: bufio.NewReader(stdout)}
	dir := t.TempDir()
	resp, _ := p.request("initialize", map[string]any{"processId": os.Getpid(), "rootUri": "file://" + dir, "capabilities": map[string]any{}})
	caps, _ := json.Marshal(resp["result"])
	if !strings.Contains(string(caps), "autarch.serverStatus") {
		t.Fatalf("initialize result %s lacks our command", caps)
	}
	p.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	resp, _ = p.request("workspace/executeCommand", map[string]any{"command": "autarch.serverStatus"})
	status, _ := json.Marshal(resp["result"])
	for _, want := range []string{dir, "test-model", `"source":"environment"`} {
		if !strings.Contains(string(status), want) {
			t.Errorf("status %s lacks %s", status, want)
		}
	}
	if strings.Contains(string(status), "sk-test-secret") {
		t.Error("status leaks the API key")
	}
	p.request("shutdown", nil)
	p.send(map[string]any{"method": "exit"})
	stdin.Close()
	err := cmd.Wait()
	if err != nil {
		t.Fatalf("exit after shutdown: %v\nstderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "serving on stdio") {
		t.Errorf("stderr has no log lines: %q", stderr.String())
	}
}

func TestServeSubprocessExitWithoutShutdown(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "serve", "--log", "")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &lspPeer{t: t, w: stdin, r: bufio.NewReader(stdout)}
	p.request("initialize", map[string]any{"processId": nil, "rootUri": nil, "capabilities": map[string]any{}})
	p.send(map[string]any{"method": "exit"})
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit without shutdown: %v, want exit status 1", err)
	}
}
