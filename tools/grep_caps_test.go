package tools

import (
	"log/slog"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestGrepCaps: the grep tool answers a 1 MB pattern, and a regular
// expression that defeats its DFA over a 10 MB one-line file, quickly and
// with a message saying what to do, instead of running for minutes; a line
// it returns is capped. Times are logged (see the report), not asserted.
func TestGrepCaps(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(1))
	line := make([]byte, 10<<20)
	for i := range line {
		line[i] = 'a' + byte(r.Intn(10))
	}
	copy(line[5<<20:], "needle")
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), line, 0o644); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"small.go": "package x\n// aaaa needle\n"})
	huge := make([]byte, 1<<20)
	for i := range huge {
		huge[i] = 'a' + byte(r.Intn(26))
	}
	h := newHarness(t, "pulsing", SessionConfig{Root: dir})
	tests := []struct {
		name, pattern string
		want          string
	}{
		{"1 MB literal pattern", string(huge), "search for a shorter, distinctive part of it"},
		{"1 MB regex pattern", string(huge) + ".*", "search for a shorter, distinctive part of it"},
		{"a DFA state per byte", `a[a-j]{800}$`, "The search stopped early"},
		{"a DFA state per byte, no window", `[a-j]a[a-j]{300}$`, "The search stopped early"},
		{"a match in the 10 MB line", "needle", `"total":2`},
	}
	for _, tc := range tests {
		start := time.Now()
		res := h.call("grep", map[string]any{"pattern": tc.pattern, "caseSensitive": true})
		t.Logf("%s: %v", tc.name, time.Since(start))
		if !strings.Contains(res.Output, tc.want) {
			t.Errorf("%s: %.300s, want %q", tc.name, res.Output, tc.want)
		}
		if len(res.Output) > 8<<10 {
			t.Errorf("%s: a %d-byte result", tc.name, len(res.Output))
		}
		if !utf8.ValidString(res.Output) {
			t.Errorf("%s: invalid UTF-8 in the result", tc.name)
		}
	}
}

// TestGlobCaps: glob_search and find_files refuse an over-long pattern
// with a message saying what to do.
func TestGlobCaps(t *testing.T) {
	h := newHarness(t, "pulsing", SessionConfig{})
	h.e = NewEngine(allTools(t), nil, slog.New(slog.DiscardHandler))
	long := strings.Repeat("*a", 3000) + "b"
	for _, tool := range []string{"glob_search", "find_files"} {
		start := time.Now()
		res := h.call(tool, map[string]any{"pattern": long})
		t.Logf("%s with a %d-byte pattern: %v", tool, len(long), time.Since(start))
		if !res.Failed || !strings.Contains(res.Output, "shorter") {
			t.Errorf("%s: %.300s, want a refusal asking for a shorter pattern", tool, res.Output)
		}
	}
}
