package tools

import (
	"context"
	"strings"
)

type takeNoteParams struct {
	Reason string `json:"reason"`
	Note   string `json:"note" jsonschema:"The note content to store for the current workflow stage"`
}

func newTakeNote() Tool {
	return newTool("take_note", describe("take_note"), ReadOnly, runTakeNote).declare(EffectNone, CategoryMeta)
}

func runTakeNote(ctx context.Context, s *Session, p takeNoteParams) (Result, error) {
	if !s.cfg.Workflow {
		return opError("Notes are only available in workflow channels"), nil
	}
	if strings.TrimSpace(p.Note) == "" {
		return opError("Note content cannot be empty"), nil
	}
	s.AddNote(p.Note)
	return jsonResult(map[string]bool{"success": true}, false), nil
}
