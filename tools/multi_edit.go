package tools

import (
	"context"
	"fmt"
)

// EditOperation is one edit of multi_edit.
type EditOperation struct {
	OldString  string `json:"oldString" jsonschema:"Exact content to match"`
	NewString  string `json:"newString" jsonschema:"Replacement content"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"If true, replaces all occurrences (default: false)"`
}

type multiEditParams struct {
	Reason string          `json:"reason"`
	Path   string          `json:"path" jsonschema:"Path to file, relative to worktree root"`
	Edits  []EditOperation `json:"edits" jsonschema:"Array of edit operations to apply sequentially. Each edit has: oldString (exact content to match), newString (replacement content), replaceAll (optional, if true replaces all occurrences)"`
}

func newMultiEdit() Tool {
	return newTool("multi_edit", describe("multi_edit")+worktreeNote, Write, runMultiEdit).declare(EffectEdit, CategoryMutating)
}

func runMultiEdit(ctx context.Context, s *Session, p multiEditParams) (Result, error) {
	rel, content, res, ok := s.editTarget(p.Path)
	if !ok {
		return res, nil
	}
	updated, res, ok := applyEdits(content, p.Edits)
	if !ok {
		return res, nil
	}
	if err := s.root.WriteFile(rel, []byte(updated)); err != nil {
		return errorResult(err.Error()), nil
	}
	return jsonResult(map[string]any{"success": true, "edits_applied": len(p.Edits)}, false), nil
}

// applyEdits applies edits in order to content in memory; on the first
// failing edit nothing is returned, so the file stays untouched.
func applyEdits(content string, edits []EditOperation) (string, Result, bool) {
	if len(edits) == 0 {
		return "", errorResult("No edits provided"), false
	}
	for i, e := range edits {
		if e.OldString == "" {
			return "", jsonResult(map[string]any{"error": fmt.Sprintf("Edit %d: oldString is empty", i), "edit_index": i}, true), false
		}
		next, count, err := applyEdit(content, e.OldString, e.NewString, e.ReplaceAll)
		switch err {
		case errNotFound:
			out := map[string]any{"error": fmt.Sprintf("Edit %d: oldString not found", i), "edit_index": i, "oldString_preview": preview(e.OldString)}
			if n := findNearest(content, e.OldString); n != nil {
				out["nearest"] = n
			}
			return "", jsonResult(out, true), false
		case errMultiple:
			return "", jsonResult(map[string]any{
				"error":      fmt.Sprintf("Edit %d: oldString found %d times (set replaceAll=true to replace all)", i, count),
				"edit_index": i, "found_count": count, "oldString_preview": preview(e.OldString),
			}, true), false
		}
		content = next
	}
	return content, Result{}, true
}
