package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLangServerLatency measures the code intelligence tools through the
// engine, gopls in the sandbox: the first call (server start, workspace
// load) and warm calls of go_to_definition and find_references, on
// $(go env GOROOT)/src/net/http and on this repository. Run with
// AUTARCH_BENCH_LANGSERVER=1 go test ./tools -run TestLangServerLatency -v.
func TestLangServerLatency(t *testing.T) {
	if os.Getenv("AUTARCH_BENCH_LANGSERVER") == "" {
		t.Skip("a measurement: set AUTARCH_BENCH_LANGSERVER=1")
	}
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	targets := []struct {
		name, root, file, line, symbol, refsFile, refsLine, refsSymbol string
	}{
		{"GOROOT/src/net/http", filepath.Join(strings.TrimSpace(string(goroot)), "src", "net", "http"), "server.go", "\thandler.ServeHTTP(rw, req)", "ServeHTTP",
			"server.go", "func (w *response) finishRequest()", "finishRequest"},
		{"autarch (this repository)", repo, "tools/engine.go", "\tres, err = e.execute(ctx, s, t, args)", "execute",
			"tools/engine.go", "func (e *Engine) Call(ctx context.Context", "Call"},
	}
	const warmRuns = 5
	var rows []string
	for _, tg := range targets {
		h := newHarness(t, "research", SessionConfig{Root: tg.root})
		at := func(file, text, symbol string) map[string]any {
			data, err := os.ReadFile(filepath.Join(tg.root, file))
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(l, text) {
					return map[string]any{"path": file, "line": i + 1, "symbol": symbol}
				}
			}
			t.Fatalf("%s: no line %q", file, text)
			return nil
		}
		timed := func(tool string, args map[string]any) (time.Duration, int) {
			start := time.Now()
			res := h.call(tool, args)
			d := time.Since(start)
			if res.Failed {
				t.Errorf("%s on %s after %s: %s", tool, tg.name, d, res.Output)
			}
			n, _ := decode(t, res)["count"].(float64)
			return d, int(n)
		}
		def := at(tg.file, tg.line, tg.symbol)
		refs := at(tg.refsFile, tg.refsLine, tg.refsSymbol)
		firstDef, _ := timed("go_to_definition", def)
		firstRefs, nRefs := timed("find_references", refs)
		var warmDef, warmRefs []time.Duration
		for range warmRuns {
			d, _ := timed("go_to_definition", def)
			warmDef = append(warmDef, d)
			d, _ = timed("find_references", refs)
			warmRefs = append(warmRefs, d)
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s (%d refs) | %s |", tg.name, ms(firstDef), ms(median(warmDef)), ms(firstRefs), nRefs, ms(median(warmRefs))))
		h.s.Close()
	}
	t.Logf("\n| target | first definition (start + load) | warm definition (median of %d) | first references | warm references (median of %d) |\n|---|---|---|---|---|\n%s",
		warmRuns, warmRuns, strings.Join(rows, "\n"))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }
