package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autarch-dev/autarch/workspace"
)

// bigSource is n lines of Go-like source.
func bigSource(n int, seed int) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// version %d\npackage big\n", seed)
	for i := 2; i < n; i++ {
		fmt.Fprintf(&sb, "\tif err := process(ctx, items[%d], \"value %d\"); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i, i)
	}
	return sb.String()
}

// BenchmarkReadFileRange100k reads lines 1–100 of a 100k-line file: the
// first read of a version (the whole file is scanned for secrets) and a
// repeated read (the verdict is cached by the file's version).
func BenchmarkReadFileRange100k(b *testing.B) {
	args := json.RawMessage(`{"reason":"b","path":"big.go","startLine":1,"endLine":100}`)
	b.Run("first", func(b *testing.B) {
		e, s := benchSession(b, "big.go", bigSource(100_000, 0))
		path := filepath.Join(s.root.Dir(), "big.go")
		i := 0
		for b.Loop() {
			b.StopTimer()
			i++
			if err := os.WriteFile(path, []byte(bigSource(100_000, i)), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if res, err := e.Call(context.Background(), s, "read_file", args); err != nil || res.Failed {
				b.Fatal(res.Output, err)
			}
		}
	})
	b.Run("repeat", func(b *testing.B) {
		e, s := benchSession(b, "big.go", bigSource(100_000, 0))
		if res, err := e.Call(context.Background(), s, "read_file", args); err != nil || res.Failed {
			b.Fatal(res.Output, err)
		}
		benchCalls(b, e, s, "read_file", args)
	})
}

// wholeFileRange is the reference for readRange: the range cut from the
// whole text (read_file's algorithm before streaming).
func wholeFileRange(text string, p readFileParams) (string, bool) {
	if workspace.IsBinary([]byte(text[:min(len(text), binaryHead)])) {
		return p.Path + " is a binary file (NUL bytes or mostly control characters); read_file shows text files only", false
	}
	total := strings.Count(text, "\n")
	if len(text) > 0 && !strings.HasSuffix(text, "\n") {
		total++
	}
	start, end := 1, total
	if p.StartLine != nil {
		start = *p.StartLine
	}
	if p.EndLine != nil {
		end = *p.EndLine
	}
	if start < 1 || (p.EndLine != nil && end < start) {
		return fmt.Sprintf("Invalid line range %d-%d: lines are 1-indexed and endLine must be ≥ startLine", start, end), false
	}
	if total > 0 && start > total {
		return fmt.Sprintf("startLine %d is past the end of %s (%d lines)", start, p.Path, total), false
	}
	end = min(end, total)
	truncated := false
	if p.EndLine == nil && end-start+1 > readFileMaxLines {
		end = start + readFileMaxLines - 1
		truncated = true
	}
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for i := start; i <= end; i++ {
		fmt.Fprintf(&b, "%d\t%s", i, lines[i-1])
	}
	if truncated {
		fmt.Fprintf(&b, "\n[truncated: %s has %d lines; read more with startLine=%d]\n", p.Path, total, end+1)
	}
	return b.String(), true
}

func intp(i int) *int { return &i }

func checkRange(t *testing.T, text string, p readFileParams) {
	t.Helper()
	res, ok := readRange(strings.NewReader(text), p)
	wantText, wantOK := wholeFileRange(text, p)
	want := textResult(wantText).Output
	if !wantOK {
		want = errorResult(wantText).Output
	}
	if res.Output != want || ok != wantOK {
		t.Fatalf("range %v-%v of %q:\ngot  %q (%v)\nwant %q (%v)", deref(p.StartLine), deref(p.EndLine), trim(text), trim(res.Output), ok, trim(want), wantOK)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func TestReadRange(t *testing.T) {
	long := strings.Repeat("x", 200<<10) + "\n"
	many := strings.Repeat("line\n", 2500)
	tests := []struct {
		name       string
		text       string
		start, end *int
	}{
		{"whole", "a\nb\nc\n", nil, nil},
		{"no final newline", "a\nb\nc", intp(2), nil},
		{"last line without newline", "a\nb\nc", intp(3), intp(3)},
		{"empty", "", nil, nil},
		{"empty with start", "", intp(1), intp(5)},
		{"past the end", "a\nb\n", intp(3), nil},
		{"end past the end", "a\nb\n", intp(1), intp(9)},
		{"start zero", "a\nb\n", intp(0), nil},
		{"start zero with end", "a\nb\n", intp(0), intp(1)},
		{"end before start", "a\nb\n", intp(2), intp(1)},
		{"truncated", many, nil, nil},
		{"truncated from the middle", many, intp(400), nil},
		{"not truncated near the end", many, intp(600), nil},
		{"explicit long range", many, intp(1), intp(2400)},
		{"long line", "a\n" + long + "b\n", intp(2), intp(3)},
		{"skip a long line", long + long + "c", intp(3), nil},
		{"crlf", "a\r\nb\r\n", intp(2), intp(2)},
		{"binary", "\x00\x01\x02", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRange(t, tc.text, readFileParams{Path: "f.txt", StartLine: tc.start, EndLine: tc.end})
		})
	}
}

func FuzzReadRange(f *testing.F) {
	f.Add("a\nb\nc", 1, 2, true, true)
	f.Add("", 0, 0, false, false)
	f.Add(strings.Repeat("l\n", 2100), 3, 0, true, false)
	f.Fuzz(func(t *testing.T, text string, start, end int, hasStart, hasEnd bool) {
		p := readFileParams{Path: "f.txt"}
		if hasStart {
			p.StartLine = &start
		}
		if hasEnd {
			p.EndLine = &end
		}
		checkRange(t, text, p)
	})
}

// TestReadFileGateByVersion: the whole-file verdict holds for a range, on
// the first read and on reads of a cached version, and a new version is
// decided again.
func TestReadFileGateByVersion(t *testing.T) {
	clean := bigSource(100_000, 1)
	lines := strings.SplitAfter(clean, "\n")
	lines[89_999] = "\tconst deployToken = \"ghp_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\"\n"
	secret := strings.Join(lines, "")
	h := newHarness(t, "pulsing", SessionConfig{})
	path := filepath.Join(h.dir, "big.go")
	read := func() Result {
		return h.call("read_file", map[string]any{"path": "big.go", "startLine": 1, "endLine": 100})
	}
	steps := []struct {
		name    string
		content string
		blocked bool
	}{
		{"secret at line 90000, first read", secret, true},
		{"secret, cached version", "", true},
		{"cleaned", clean, false},
		{"clean, cached version", "", false},
		{"secret again", secret + "\n", true},
		{"secret again, cached version", "", true},
	}
	for _, st := range steps {
		if st.content != "" {
			if err := os.WriteFile(path, []byte(st.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res := read()
		if got := strings.Contains(res.Output, "ghp_") || strings.Contains(res.Output, "\tif err"); got == st.blocked {
			t.Fatalf("%s: content shown = %v, output %q", st.name, got, trim(res.Output))
		}
		if st.blocked && !strings.Contains(res.Output, "sensitive") {
			t.Fatalf("%s: want a blocked result, got %q", st.name, trim(res.Output))
		}
	}
}
