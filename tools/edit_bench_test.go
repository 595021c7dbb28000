package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSession makes a pulsing session over a file of the given content.
func benchSession(b *testing.B, name, content string) (*Engine, *Session) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	reg, _ := ForRole("pulsing", Deps{})
	s, err := NewSession(SessionConfig{Root: dir, Role: "pulsing", Mode: ModeYolo})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	s.MarkRead(name)
	return NewEngine(reg, nil, discard()), s
}

// benchCalls calls tool in a loop, with each of args in turn (an edit and
// the edit that undoes it); a failed call fails the benchmark.
func benchCalls(b *testing.B, e *Engine, s *Session, tool string, args ...json.RawMessage) {
	b.Helper()
	for i := 0; b.Loop(); i++ {
		res, err := e.Call(context.Background(), s, tool, args[i%len(args)])
		if err != nil || res.Failed {
			b.Fatal(res.Output, err)
		}
	}
}

func oneMB() string {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "func f%d(x int) int { return x + %d }\n", i, i)
	}
	return sb.String()
}

// BenchmarkEditFile1MB replaces a unique line in a 1 MB file (and back).
func BenchmarkEditFile1MB(b *testing.B) {
	e, s := benchSession(b, "big.go", oneMB())
	args := []json.RawMessage{
		json.RawMessage(`{"reason":"b","path":"big.go","oldString":"func f5000(x int) int { return x + 5000 }","newString":"func f5000(x int) int { return x - 5000 }"}`),
		json.RawMessage(`{"reason":"b","path":"big.go","oldString":"func f5000(x int) int { return x - 5000 }","newString":"func f5000(x int) int { return x + 5000 }"}`),
	}
	benchCalls(b, e, s, "edit_file", args...)
}

// BenchmarkMultiEdit1MB applies 10 edits to a 1 MB file (and back).
func BenchmarkMultiEdit1MB(b *testing.B) {
	e, s := benchSession(b, "big.go", oneMB())
	mk := func(from, to string) json.RawMessage {
		var edits []map[string]string
		for k := 1; k <= 10; k++ {
			n := k * 1000
			edits = append(edits, map[string]string{
				"oldString": fmt.Sprintf("return x %s %d }", from, n),
				"newString": fmt.Sprintf("return x %s %d }", to, n),
			})
		}
		raw, _ := json.Marshal(map[string]any{"reason": "b", "path": "big.go", "edits": edits})
		return raw
	}
	args := []json.RawMessage{mk("+", "-"), mk("-", "+")}
	benchCalls(b, e, s, "multi_edit", args...)
}

// BenchmarkReadFileRange reads 100 lines from the middle of a 100k-line file.
func BenchmarkReadFileRange(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&sb, "line %d of a large generated file\n", i)
	}
	e, s := benchSession(b, "big.txt", sb.String())
	args := json.RawMessage(`{"reason":"b","path":"big.txt","startLine":50000,"endLine":50099}`)
	benchCalls(b, e, s, "read_file", args)
}
