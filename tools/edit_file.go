package tools

import (
	"context"
)

type editFileParams struct {
	Reason     string `json:"reason"`
	Path       string `json:"path" jsonschema:"Path to file, relative to worktree root"`
	OldString  string `json:"oldString" jsonschema:"Exact content to match in the file (must be found as-is, including whitespace and indentation)"`
	NewString  string `json:"newString" jsonschema:"Replacement content for the matched string (must preserve intended indentation and structure)"`
	ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"If true, replaces all occurrences of oldString; otherwise, fails if multiple matches are found"`
}

func newEditFile() Tool {
	return newTool("edit_file", describe("edit_file")+worktreeNote, Write, runEditFile).declare(EffectEdit, CategoryMutating)
}

func runEditFile(ctx context.Context, s *Session, p editFileParams) (Result, error) {
	rel, content, res, ok := s.editTarget(p.Path)
	if !ok {
		return res, nil
	}
	if p.OldString == "" {
		return errorResult("oldString is empty"), nil
	}
	updated, count, err := applyEdit(content, p.OldString, p.NewString, p.ReplaceAll)
	switch err {
	case errNotFound:
		out := map[string]any{"error": "oldString not found"}
		if n := findNearest(content, p.OldString); n != nil {
			out["nearest"] = n
		}
		return jsonResult(out, true), nil
	case errMultiple:
		return jsonResult(map[string]any{"error": "oldString found multiple times", "found_count": count}, true), nil
	}
	if err := s.root.WriteFile(rel, []byte(updated)); err != nil {
		return errorResult(err.Error()), nil
	}
	return jsonResult(map[string]any{"success": true, "replacements": count}, false), nil
}
