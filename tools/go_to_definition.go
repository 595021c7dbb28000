package tools

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/langserver"
)

//go:embed go_to_definition.md
var goToDefinitionDesc string

type goToDefinitionParams struct {
	Reason string `json:"reason"`
	symbolAt
}

func newGoToDefinition() Tool {
	return newTool("go_to_definition", goToDefinitionDesc, ReadOnly, runGoToDefinition).declare(EffectSearch, CategoryReadOnly)
}

func runGoToDefinition(ctx context.Context, s *Session, p goToDefinitionParams) (Result, error) {
	if locs, ok := s.editorLocations(ctx, "definition", p.symbolAt); ok {
		return s.locationsResult("definitions", locs, "no definition found: "+p.Symbol+" may be a keyword, a literal or defined outside the project"), nil
	}
	r, res, ok, err := s.symbolRequest(ctx, p.symbolAt, "textDocument/definition", nil)
	if !ok {
		return res, err
	}
	locs, err := langserver.Locations(r.raw)
	if err != nil {
		return lspError(r.c, err), nil
	}
	return s.locationsResult("definitions", locs, "no definition found: "+p.Symbol+" may be a keyword, a literal or defined outside the project"), nil
}
