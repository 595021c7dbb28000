package tools

import (
	"context"
	_ "embed"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/langserver"
)

//go:embed find_references.md
var findReferencesDesc string

type findReferencesParams struct {
	Reason string `json:"reason"`
	symbolAt
	IncludeDeclaration bool `json:"includeDeclaration,omitempty" jsonschema:"Also list the declaration itself (default: false)"`
}

func newFindReferences() Tool {
	return newTool("find_references", findReferencesDesc, ReadOnly, runFindReferences)
}

func runFindReferences(ctx context.Context, s *Session, p findReferencesParams) (Result, error) {
	rel, pos, res, ok := s.symbolPosition(p.symbolAt)
	if !ok {
		return res, nil
	}
	c, res, ok := s.langClient(rel)
	if !ok {
		return res, nil
	}
	params := protocol.ReferenceParams{TextDocumentPositionParams: s.textDocPos(rel, pos),
		Context: protocol.ReferenceContext{IncludeDeclaration: p.IncludeDeclaration}}
	raw, res, ok, err := s.lspCall(ctx, c, rel, "textDocument/references", params)
	if !ok {
		return res, err
	}
	locs, err := langserver.Locations(raw)
	if err != nil {
		return lspError(c, err), nil
	}
	return s.locationsResult("references", locs, "no references found to "+p.Symbol), nil
}
