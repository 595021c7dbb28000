package tools

import (
	"context"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/langserver"
)

type documentSymbolsParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path" jsonschema:"File path, relative to the worktree root"`
}

// lspSymbol is one symbol the model sees.
type lspSymbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Detail    string `json:"detail,omitempty"`
	Container string `json:"container,omitempty"`
	lspLocation
}

func newDocumentSymbols() Tool {
	return newTool("document_symbols", describe("document_symbols"), ReadOnly, runDocumentSymbols).declare(EffectRead, CategoryReadOnly)
}

func runDocumentSymbols(ctx context.Context, s *Session, p documentSymbolsParams) (Result, error) {
	rel, res, ok := s.resolve(p.Path)
	if !ok {
		return res, nil
	}
	if _, res, ok := s.readText(rel, p.Path); !ok {
		return res, nil
	}
	c, res, ok := s.langClient(rel)
	if !ok {
		return res, nil
	}
	u := uri.File(s.root.Abs(rel))
	raw, res, ok, err := s.lspCall(ctx, c, rel, "textDocument/documentSymbol", protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if !ok {
		return res, err
	}
	syms, err := langserver.Symbols(raw, u)
	if err != nil {
		return lspError(c, err), nil
	}
	out, _ := s.symbolsOf(syms, 0)
	return jsonResult(map[string]any{"symbols": out, "count": len(out)}, false), nil
}

// symbolsOf are the symbols inside the worktree (at most limit, 0: all)
// and how many were left out.
func (s *Session) symbolsOf(syms []langserver.Symbol, limit int) ([]lspSymbol, int) {
	out := []lspSymbol{}
	left := 0
	for _, sym := range syms {
		locs, _ := s.locationsOf([]protocol.Location{sym.Location})
		if len(locs) == 0 {
			continue
		}
		if limit > 0 && len(out) >= limit {
			left++
			continue
		}
		out = append(out, lspSymbol{Name: sym.Name, Kind: sym.Kind, Detail: sym.Detail, Container: sym.Container, lspLocation: locs[0]})
	}
	return out, left
}
