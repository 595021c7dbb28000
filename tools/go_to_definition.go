package tools

import (
	"context"
)

type goToDefinitionParams struct {
	Reason string `json:"reason"`
	symbolAt
}

func newGoToDefinition() Tool {
	return newTool("go_to_definition", describe("go_to_definition"), ReadOnly, runGoToDefinition).declare(EffectSearch, CategoryReadOnly)
}

func runGoToDefinition(ctx context.Context, s *Session, p goToDefinitionParams) (Result, error) {
	none := "no definition found: " + p.Symbol + " may be a keyword, a literal or defined outside the project"
	if locs, ok := s.editorLocations(ctx, "definition", p.symbolAt); ok {
		return s.locationsResult("definitions", locs, none), nil
	}
	locs, res, ok, err := s.symbolLocations(ctx, p.symbolAt, "textDocument/definition", nil)
	if !ok {
		return res, err
	}
	return s.locationsResult("definitions", locs, none), nil
}
