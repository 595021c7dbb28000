package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

//go:embed read_file.md
var readFileDesc string

// readFileMaxLines caps a read without a range; the model is told how to page.
const readFileMaxLines = 2000

type readFileParams struct {
	Reason    string `json:"reason"`
	Path      string `json:"path" jsonschema:"Path to file, relative to project root"`
	StartLine *int   `json:"startLine,omitempty" jsonschema:"Optional start line (1-indexed, inclusive)"`
	EndLine   *int   `json:"endLine,omitempty" jsonschema:"Optional end line (1-indexed, inclusive)"`
}

// newReadFile builds read_file; editing roles learn it is required before edits.
func newReadFile(role string) Tool {
	desc := readFileDesc
	if role == "pulsing" {
		desc += "Required before attempting to edit_file.\n"
	}
	return newTool("read_file", desc, ReadOnly, runReadFile)
}

func runReadFile(ctx context.Context, s *Session, p readFileParams) (Result, error) {
	rel, res, ok := s.resolve(p.Path)
	if !ok {
		return res, nil
	}
	text, res, ok := s.readText(rel, p.Path)
	if !ok {
		return res, nil
	}
	s.MarkRead(rel)
	lines := strings.SplitAfter(text, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	start, end := 1, len(lines)
	if p.StartLine != nil {
		start = *p.StartLine
	}
	if p.EndLine != nil {
		end = *p.EndLine
	}
	if start < 1 || (p.EndLine != nil && end < start) {
		return errorResult(fmt.Sprintf("Invalid line range %d-%d: lines are 1-indexed and endLine must be ≥ startLine", start, end)), nil
	}
	if len(lines) > 0 && start > len(lines) {
		return errorResult(fmt.Sprintf("startLine %d is past the end of %s (%d lines)", start, p.Path, len(lines))), nil
	}
	end = min(end, len(lines))
	truncated := false
	if p.EndLine == nil && end-start+1 > readFileMaxLines {
		end = start + readFileMaxLines - 1
		truncated = true
	}
	var b strings.Builder
	for i := start; i <= end; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\t')
		b.WriteString(lines[i-1])
	}
	if truncated {
		fmt.Fprintf(&b, "\n[truncated: %s has %d lines; read more with startLine=%d]\n", p.Path, len(lines), end+1)
	}
	return textResult(b.String()), nil
}
