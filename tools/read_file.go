package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/workspace"
)

//go:embed read_file.md
var readFileDesc string

// binaryHead is how much of a file the binary check looks at.
const binaryHead = 8 << 10

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

// runReadFile serves a line range from the whole file. The file is loaded
// whole, also for a range, because the secret gate decides on the whole
// content (a secret on line 900 blocks a read of lines 1-10) and takes it
// as bytes; memory stays bounded because Root.ReadFile reads only regular
// files (never a FIFO or a device, never blocking) of at most
// workspace.MaxReadSize bytes, checked with fstat before the first byte is
// read. A larger file is refused with its size, the limit and what to do
// instead, whatever the range; a binary one (a sparse file is all NULs) is
// refused after a look at its first 8 KB.
func runReadFile(ctx context.Context, s *Session, p readFileParams) (Result, error) {
	rel, res, ok := s.resolve(p.Path)
	if !ok {
		return res, nil
	}
	text, res, ok := s.readText(rel, p.Path)
	if !ok {
		return res, nil
	}
	if workspace.IsBinary([]byte(text[:min(len(text), binaryHead)])) {
		return errorResult(p.Path + " is a binary file (NUL bytes or mostly control characters); read_file shows text files only"), nil
	}
	s.MarkRead(rel)
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
		return errorResult(fmt.Sprintf("Invalid line range %d-%d: lines are 1-indexed and endLine must be ≥ startLine", start, end)), nil
	}
	if total > 0 && start > total {
		return errorResult(fmt.Sprintf("startLine %d is past the end of %s (%d lines)", start, p.Path, total)), nil
	}
	end = min(end, total)
	truncated := false
	if p.EndLine == nil && end-start+1 > readFileMaxLines {
		end = start + readFileMaxLines - 1
		truncated = true
	}
	// Skip to the start line without splitting the whole file.
	off := 0
	for line := 1; line < start; line++ {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	var b strings.Builder
	for i := start; i <= end; i++ {
		nl := strings.IndexByte(text[off:], '\n')
		next := len(text)
		if nl >= 0 {
			next = off + nl + 1
		}
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\t')
		b.WriteString(text[off:next])
		off = next
	}
	if truncated {
		fmt.Fprintf(&b, "\n[truncated: %s has %d lines; read more with startLine=%d]\n", p.Path, total, end+1)
	}
	return textResult(b.String()), nil
}
