package tools

import (
	"context"

	"go.lsp.dev/protocol"
)

type findReferencesParams struct {
	Reason string `json:"reason"`
	symbolAt
	IncludeDeclaration bool `json:"includeDeclaration,omitempty" jsonschema:"Also list the declaration itself (default: false)"`
}

func newFindReferences() Tool {
	return newTool("find_references", describe("find_references"), ReadOnly, runFindReferences).declare(EffectSearch, CategoryReadOnly)
}

// Servers read includeDeclaration differently (pyright leaves out the use
// at the position asked about, typescript-language-server keeps the
// declaration), so every server is asked with the declaration, and the
// declaration — the symbol's definition — is dropped here unless wanted.
func runFindReferences(ctx context.Context, s *Session, p findReferencesParams) (Result, error) {
	if locs, ok := s.editorLocations(ctx, "references", p.symbolAt); ok {
		if defs, ok := s.editorLocations(ctx, "definition", p.symbolAt); ok && !p.IncludeDeclaration {
			locs = withoutDeclarations(locs, defs)
		}
		return s.locationsResult("references", locs, "no references found to "+p.Symbol), nil
	}
	locs, res, ok, err := s.symbolLocations(ctx, p.symbolAt, "textDocument/references", func(at protocol.TextDocumentPositionParams) any {
		return protocol.ReferenceParams{TextDocumentPositionParams: at, Context: protocol.ReferenceContext{IncludeDeclaration: true}}
	})
	if !ok {
		return res, err
	}
	if !p.IncludeDeclaration {
		defs, res, ok, err := s.symbolLocations(ctx, p.symbolAt, "textDocument/definition", nil)
		if !ok {
			return res, err
		}
		locs = withoutDeclarations(locs, defs)
	}
	return s.locationsResult("references", locs, "no references found to "+p.Symbol), nil
}
