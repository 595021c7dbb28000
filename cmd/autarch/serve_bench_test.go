package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// startServe runs the binary in serve mode and initializes it over dir.
func startServe(tb testing.TB, bin, dir string, caps map[string]any) (*lspPeer, *exec.Cmd, func()) {
	tb.Helper()
	t, _ := tb.(*testing.T)
	if t == nil {
		t = &testing.T{}
	}
	cmd := exec.Command(bin, "serve", "--log", "")
	cmd.Env = append(os.Environ(), "AUTARCH_MODEL=m", "OPENAI_API_KEY=k", "AUTARCH_ALLOW_UNSANDBOXED=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	p := &lspPeer{t: t, w: stdin, r: bufio.NewReader(stdout)}
	p.request("initialize", map[string]any{"processId": nil, "rootUri": "file://" + dir, "capabilities": caps})
	p.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	return p, cmd, func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }
}

// BenchmarkServeRoundTrip measures autarch/status over the real binary's
// stdio, reporting p50 and p99.
func BenchmarkServeRoundTrip(b *testing.B) {
	bin := buildBinary(&testing.T{})
	p, _, stop := startServe(b, bin, b.TempDir(), map[string]any{})
	defer stop()
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		p.request("autarch/status", map[string]any{})
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkServeExit measures the time from the exit notification to the
// end of the process, idle and with a request pending on a client call
// the client never answers (a search waiting for indexing, which waits for
// window/workDoneProgress/create).
func BenchmarkServeExit(b *testing.B) {
	bin := buildBinary(&testing.T{})
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	for _, pending := range []bool{false, true} {
		name := "idle"
		if pending {
			name = "pending"
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				p, cmd, stop := startServe(b, bin, dir, map[string]any{"window": map[string]any{"workDoneProgress": true}})
				if pending {
					p.id++
					p.send(map[string]any{"id": p.id, "method": "workspace/executeCommand", "params": map[string]any{"command": "autarch.search", "arguments": []any{map[string]any{"query": "a"}}}})
					p.read() // the server's workDoneProgress/create, never answered
				}
				p.request("shutdown", nil)
				t0 := time.Now()
				p.send(map[string]any{"method": "exit"})
				cmd.Wait()
				total += time.Since(t0)
				stop()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-exit")
		})
	}
}
