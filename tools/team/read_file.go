package team

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

// read_file's error codes (coding-team-tools.md).
const (
	CodeFileNotFound = "file_not_found"
	CodeReadError    = "read_error"
)

// readFileMaxLines caps a read without endLine.
const readFileMaxLines = 2000

type readFileParams struct {
	Reason    string `json:"reason"`
	Path      string `json:"path" jsonschema:"Relative path to the file"`
	StartLine *int   `json:"startLine,omitempty" jsonschema:"Line to start reading (1-indexed, inclusive)"`
	EndLine   *int   `json:"endLine,omitempty" jsonschema:"Line to stop reading (1-indexed, inclusive)"`
}

func newReadFile() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "read_file", describe("read_file"), tools.ReadOnly, readFile)
}

func readFile(ctx context.Context, s *tools.Session, p readFileParams) (tools.Result, error) {
	zero := map[string]any{"content": "", "lineCount": 0, "truncated": false}
	if rel, err := s.Root().Clean(p.Path); err == nil {
		if _, err := s.Root().Stat(rel); errors.Is(err, fs.ErrNotExist) {
			return failure(CodeFileNotFound, "File not found: "+p.Path+"; list_files or find_files show what exists", zero), nil
		}
	}
	_, data, res, ok := s.ReadText(p.Path)
	if !ok {
		return failure(CodeReadError, readMessage(res), zero), nil
	}
	if workspace.IsBinary(data[:min(len(data), 8<<10)]) {
		return failure(CodeReadError, p.Path+" is a binary file; read_file shows text files only", zero), nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start, end := 1, min(total, readFileMaxLines)
	if p.StartLine != nil {
		start = *p.StartLine
		end = min(total, start+readFileMaxLines-1)
	}
	if p.EndLine != nil {
		end = min(*p.EndLine, total)
	}
	if start < 1 || (p.EndLine != nil && *p.EndLine < start) || (start > total && total > 0) {
		return failure(CodeReadError, fmt.Sprintf("invalid line range %d-%s for %s (%d lines): lines are 1-indexed and endLine ≥ startLine", start, endText(p.EndLine), p.Path, total), zero), nil
	}
	content := strings.Join(lines[min(start-1, total):max(end, 0)], "")
	out := end - start + 1
	if total == 0 {
		out = 0
	}
	return tools.JSONResult(map[string]any{"content": content, "lineCount": out, "totalLines": total, "truncated": start > 1 || end < total}, false), nil
}

func endText(end *int) string {
	if end == nil {
		return "end"
	}
	return fmt.Sprint(*end)
}

// readMessage is the message of a read refused by the session (not
// found, a directory, blocked, too large).
func readMessage(res tools.Result) string {
	var m map[string]any
	if json.Unmarshal([]byte(res.Output), &m) == nil {
		for _, k := range []string{"error", "reason"} {
			if v, ok := m[k].(string); ok {
				return v
			}
		}
	}
	return res.Output
}
