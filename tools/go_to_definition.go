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
	return newTool("go_to_definition", goToDefinitionDesc, ReadOnly, runGoToDefinition)
}

func runGoToDefinition(ctx context.Context, s *Session, p goToDefinitionParams) (Result, error) {
	rel, pos, res, ok := s.symbolPosition(p.symbolAt)
	if !ok {
		return res, nil
	}
	c, res, ok := s.langClient(rel)
	if !ok {
		return res, nil
	}
	raw, res, ok, err := s.lspCall(ctx, c, rel, "textDocument/definition", s.textDocPos(rel, pos))
	if !ok {
		return res, err
	}
	locs, err := langserver.Locations(raw)
	if err != nil {
		return lspError(c, err), nil
	}
	return s.locationsResult("definitions", locs, "no definition found: "+p.Symbol+" may be a keyword, a literal or defined outside the project"), nil
}
