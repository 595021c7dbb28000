package tools

import (
	"context"
	_ "embed"
)

//go:embed write_file.md
var writeFileDesc string

// worktreeNote is appended to the descriptions of the pulsing variants.
const worktreeNote = "\nNote: You are working in an isolated git worktree. Changes are isolated until pulse completion.\n"

type writeFileParams struct {
	Reason  string `json:"reason"`
	Path    string `json:"path" jsonschema:"Path to file, relative to worktree root"`
	Content string `json:"content" jsonschema:"Content to write to the file"`
}

func newWriteFile() Tool {
	return newTool("write_file", writeFileDesc+worktreeNote, Write, runWriteFile).declare(EffectEdit, CategoryMutating)
}

func runWriteFile(ctx context.Context, s *Session, p writeFileParams) (Result, error) {
	rel, err := s.root.Clean(p.Path)
	if err != nil {
		return opError(err.Error()), nil
	}
	if reason, blocked := s.gate.PathBlocked(rel); blocked {
		return blockedResult(reason), nil
	}
	if err := s.root.WriteFile(rel, []byte(p.Content)); err != nil {
		return opError(err.Error()), nil
	}
	s.MarkRead(rel)
	return jsonResult(map[string]any{"success": true, "path": rel, "bytes_written": len(p.Content)}, false), nil
}
