package tools

import (
	"context"
	_ "embed"
)

//go:embed apply_patch.md
var applyPatchDesc string

type applyPatchParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path" jsonschema:"File to modify, relative to the workspace root"`
	Patch  string `json:"patch" jsonschema:"Unified diff with one or more hunks"`
}

func newApplyPatch() Tool {
	return newTool("apply_patch", applyPatchDesc, Write, runApplyPatch).declare(EffectEdit, CategoryMutating)
}

func runApplyPatch(ctx context.Context, s *Session, p applyPatchParams) (Result, error) {
	rel, content, res, ok := s.editTarget(p.Path)
	if !ok {
		return res, nil
	}
	files, err := parsePatch(p.Patch)
	if err != nil {
		return opError("Invalid patch: " + err.Error()), nil
	}
	if len(files) != 1 {
		return opError("The patch changes several files; apply_patch changes one file (path): split the patch"), nil
	}
	updated, err := applyHunks(content, files[0].hunks)
	if err != nil {
		return opError(err.Error()), nil
	}
	if err := s.root.WriteFile(rel, []byte(updated)); err != nil {
		return opError(err.Error()), nil
	}
	return jsonResult(map[string]any{"success": true, "hunks_applied": len(files[0].hunks)}, false), nil
}
