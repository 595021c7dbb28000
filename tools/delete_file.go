package tools

import (
	"context"
	"errors"
	"io/fs"
)

type deleteFileParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path" jsonschema:"File to delete, relative to the workspace root"`
}

func newDeleteFile() Tool {
	return newTool("delete_file", describe("delete_file"), Write, runDeleteFile).declare(EffectDelete, CategoryMutating)
}

func runDeleteFile(ctx context.Context, s *Session, p deleteFileParams) (Result, error) {
	if !s.cfg.AllowDelete {
		return refusal("Error: deletion disabled. (allow_delete=False in the workspace configuration)"), nil
	}
	rel, res, ok := s.resolve(p.Path)
	if !ok {
		return res, nil
	}
	fi, err := s.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return opError("File not found: " + p.Path), nil
	}
	if err != nil {
		return opError(err.Error()), nil
	}
	if fi.IsDir() {
		return opError(p.Path + " is a directory; delete_file deletes files only"), nil
	}
	if err := s.root.Remove(rel); err != nil {
		return opError(err.Error()), nil
	}
	return jsonResult(map[string]any{"success": true, "path": rel}, false), nil
}
