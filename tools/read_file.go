package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/autarch-dev/autarch/workspace"
)

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
	desc := describe("read_file")
	switch role {
	case "pulsing":
		desc += "Required before attempting to edit_file.\n"
	case "research":
		desc += "File access is tracked for research provenance.\n"
	}
	return newTool("read_file", desc, ReadOnly, runReadFile).declare(EffectRead, CategoryReadOnly)
}

// runReadFile serves a line range of a file the gate lets through. The
// gate decides on the whole content (a secret on line 90,000 blocks a read
// of lines 1–100), and its verdict is cached by the file's version
// (workspace.Stamp): a version it has decided is streamed from the open
// file up to the last line asked for, without reading the rest; any other
// is read whole (Root.ReadFileStamp: only regular files, never blocking,
// at most workspace.MaxReadSize bytes, checked with fstat before the first
// byte is read), decided, and served from memory. A larger file is refused
// with its size, the limit and what to do instead, whatever the range; a
// binary one (a sparse file is all NULs) is refused after a look at its
// first 8 KB.
func runReadFile(ctx context.Context, s *Session, p readFileParams) (Result, error) {
	rel, res, ok := s.resolve(p.Path)
	if !ok {
		return res, nil
	}
	if res, ok := readKnownVersion(s, rel, p); ok {
		return res, nil
	}
	data, res, ok := s.readBytes(rel, p.Path)
	if !ok {
		return res, nil
	}
	res, text := readRange(bytes.NewReader(data), p)
	if text {
		s.MarkRead(rel)
	}
	return res, nil
}

// readKnownVersion streams the range when the gate has decided the file's
// current version; ok false when it has not (or the file changed while
// read): the caller reads the file whole.
func readKnownVersion(s *Session, rel string, p readFileParams) (Result, bool) {
	f, fi, err := s.root.OpenRegular(rel)
	if err != nil {
		return Result{}, false
	}
	defer f.Close()
	stamp := workspace.StampOf(fi)
	if fi.Size() > workspace.MaxReadSize {
		return Result{}, false
	}
	reason, blocked, known := s.gate.KnownVerdict(rel, stamp)
	if !known {
		return Result{}, false
	}
	if blocked {
		return blockedResult(reason), true
	}
	if reason, blocked := s.gate.AliasBlocked(s.root, rel, stamp); blocked {
		return blockedResult(reason), true
	}
	res, text := readRange(io.LimitReader(f, fi.Size()), p)
	if after, err := f.Stat(); err != nil || workspace.StampOf(after) != stamp {
		return Result{}, false
	}
	if text {
		s.MarkRead(rel)
	}
	return res, true
}

// readRange formats the asked lines of a text read from r, numbered; text
// is false when the answer is an error (a binary file, a bad range).
func readRange(r io.Reader, p readFileParams) (res Result, text bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(binaryHead)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return errorResult(fmt.Sprintf("reading %s: %v", p.Path, err)), false
	}
	if workspace.IsBinary(head) {
		return errorResult(p.Path + " is a binary file (NUL bytes or mostly control characters); read_file shows text files only"), false
	}
	start := 1
	if p.StartLine != nil {
		start = *p.StartLine
	}
	if start < 1 || (p.EndLine != nil && *p.EndLine < start) {
		end := 0
		if p.EndLine != nil {
			end = *p.EndLine
		} else if end, err = countLines(br); err != nil {
			return errorResult(fmt.Sprintf("reading %s: %v", p.Path, err)), false
		}
		return errorResult(fmt.Sprintf("Invalid line range %d-%d: lines are 1-indexed and endLine must be ≥ startLine", start, end)), false
	}
	last := start + readFileMaxLines - 1
	if p.EndLine != nil {
		last = *p.EndLine
	}
	var b strings.Builder
	n, eof := 0, false
	for n < last {
		if _, err := br.Peek(1); err != nil {
			if err != io.EOF {
				return errorResult(fmt.Sprintf("reading %s: %v", p.Path, err)), false
			}
			eof = true
			break
		}
		n++
		var w *strings.Builder
		if n >= start {
			b.WriteString(strconv.Itoa(n))
			b.WriteByte('\t')
			w = &b
		}
		if err := copyLine(br, w); err == io.EOF {
			eof = true
			break
		} else if err != nil {
			return errorResult(fmt.Sprintf("reading %s: %v", p.Path, err)), false
		}
	}
	if !eof {
		_, err := br.Peek(1)
		eof = err == io.EOF
	}
	if eof && n > 0 && start > n {
		return errorResult(fmt.Sprintf("startLine %d is past the end of %s (%d lines)", start, p.Path, n)), false
	}
	if p.EndLine == nil && !eof {
		rest, err := countLines(br)
		if err != nil {
			return errorResult(fmt.Sprintf("reading %s: %v", p.Path, err)), false
		}
		fmt.Fprintf(&b, "\n[truncated: %s has %d lines; read more with startLine=%d]\n", p.Path, n+rest, last+1)
	}
	return textResult(b.String()), true
}

// copyLine reads one line, with its '\n', into w (nil: skip it); it
// returns io.EOF when the text ended in the line.
func copyLine(br *bufio.Reader, w *strings.Builder) error {
	for {
		chunk, err := br.ReadSlice('\n')
		if w != nil {
			w.Write(chunk)
		}
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// countLines counts the lines left in br (a last line without '\n' counts).
func countLines(br *bufio.Reader) (int, error) {
	buf := make([]byte, 64<<10)
	n, last := 0, byte('\n')
	for {
		m, err := br.Read(buf)
		n += bytes.Count(buf[:m], []byte{'\n'})
		if m > 0 {
			last = buf[m-1]
		}
		if err == io.EOF {
			if last != '\n' {
				n++
			}
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}
