package tools

import (
	"context"
	"fmt"

	"github.com/autarch-dev/autarch/workspace/unidiff"
)

type applyPatchParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path,omitempty" jsonschema:"File to modify, relative to the workspace root; omit it to apply a patch of several files (each named by its --- and +++ lines)"`
	Patch  string `json:"patch" jsonschema:"Unified diff with one or more hunks (of one or more files when path is omitted; --- /dev/null creates a file)"`
}

func newApplyPatch() Tool {
	return newTool("apply_patch", describe("apply_patch"), Write, runApplyPatch).declare(EffectEdit, CategoryMutating)
}

func runApplyPatch(ctx context.Context, s *Session, p applyPatchParams) (Result, error) {
	if p.Path == "" {
		return applyMultiPatch(s, p.Patch), nil
	}
	rel, content, res, ok := s.editTarget(p.Path)
	if !ok {
		return res, nil
	}
	files, err := parsePatch(p.Patch)
	if err != nil {
		return opError("Invalid patch: " + err.Error()), nil
	}
	if len(files) != 1 {
		return opError("The patch changes several files: omit path to apply it to every file it names, or split it"), nil
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

// applyMultiPatch applies a patch of one or more files, all or nothing
// (001-9): every existing file must have been read first; deleting a file
// needs delete_file's permission.
func applyMultiPatch(s *Session, patch string) Result {
	files, err := unidiff.ParsePatch(patch)
	if err != nil {
		return opError("Invalid patch: " + err.Error())
	}
	if len(files) == 0 {
		return opError("Invalid patch: it changes no file; give a unified diff with --- a/<path> and +++ b/<path> lines and @@ hunks")
	}
	hunks := 0
	for _, f := range files {
		if f.Deleted && !s.cfg.AllowDelete {
			return opError(fmt.Sprintf("%s: the patch deletes a file, and file deletion is disabled: leave the file, or ask the user to enable deletion", f.OldPath))
		}
		hunks += len(f.Edits)
	}
	plan, msg := s.PlanPatch(files, true)
	if msg != "" {
		return opError(msg + "; nothing was changed")
	}
	if err := s.ApplyPatchPlan(plan); err != nil {
		return opError("writing the patch failed and every file was restored: " + err.Error())
	}
	return jsonResult(map[string]any{"success": true, "hunks_applied": hunks, "files": plan.Files()}, false)
}
