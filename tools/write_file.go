package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
)

// worktreeNote is appended to the descriptions of the pulsing variants.
const worktreeNote = "\nNote: You are working in an isolated git worktree. Changes are isolated until pulse completion.\n"

type writeFileParams struct {
	Reason  string `json:"reason"`
	Path    string `json:"path" jsonschema:"Path to file, relative to worktree root"`
	Content string `json:"content" jsonschema:"Content to write to the file"`
	Mode    string `json:"mode,omitempty" jsonschema:"'overwrite' (default) replaces the file; 'append' adds content at its end (creating it when missing)"`
}

// Write modes (tool-engine.md WriteFileArgs.mode).
const (
	writeOverwrite = "overwrite"
	writeAppend    = "append"
)

// appending reports whether a write_file call appends.
func (p writeFileParams) appending() bool { return p.Mode == writeAppend }

func newWriteFile() Tool {
	return newTool("write_file", describe("write_file")+worktreeNote, Write, runWriteFile).declare(EffectEdit, CategoryMutating)
}

func runWriteFile(ctx context.Context, s *Session, p writeFileParams) (Result, error) {
	rel, err := s.root.Clean(p.Path)
	if err != nil {
		return opError(err.Error()), nil
	}
	if reason, blocked := s.gate.PathBlocked(rel); blocked {
		return blockedResult(reason), nil
	}
	if p.Mode != "" && p.Mode != writeOverwrite && p.Mode != writeAppend {
		return opError(fmt.Sprintf("Invalid mode %q: use \"overwrite\" (the default) or \"append\"", p.Mode)), nil
	}
	data := []byte(p.Content)
	if p.appending() {
		before, err := s.root.ReadFile(rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return opError(fmt.Sprintf("cannot append to %s: %v", rel, err)), nil
		}
		data = append(before, data...)
	}
	if err := s.root.WriteFile(rel, data); err != nil {
		return opError(err.Error()), nil
	}
	s.MarkRead(rel)
	out := map[string]any{"success": true, "path": rel, "bytes_written": len(p.Content)}
	if p.appending() {
		out["mode"], out["size"] = writeAppend, len(data)
	}
	return jsonResult(out, false), nil
}
