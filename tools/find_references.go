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
	return newTool("find_references", findReferencesDesc, ReadOnly, runFindReferences).declare(EffectSearch, CategoryReadOnly)
}

func runFindReferences(ctx context.Context, s *Session, p findReferencesParams) (Result, error) {
	r, res, ok, err := s.symbolRequest(ctx, p.symbolAt, "textDocument/references", func(at protocol.TextDocumentPositionParams) any {
		return protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: p.IncludeDeclaration}}
	})
	if !ok {
		return res, err
	}
	locs, err := langserver.Locations(r.raw)
	if err != nil {
		return lspError(r.c, err), nil
	}
	return s.locationsResult("references", locs, "no references found to "+p.Symbol), nil
}
