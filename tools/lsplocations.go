package tools

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/langserver"
)

// symbolLocations asks the language server of p's file for method about
// the symbol at p (params shapes the request; nil sends the position
// alone) and reads the locations it answers; ok false means res, err is
// the tool's answer.
func (s *Session) symbolLocations(ctx context.Context, p symbolAt, method string, params func(protocol.TextDocumentPositionParams) any) (locs []protocol.Location, res Result, ok bool, err error) {
	r, res, ok, err := s.symbolRequest(ctx, p, method, params)
	if !ok {
		return nil, res, false, err
	}
	locs, err = langserver.Locations(r.raw)
	if err != nil {
		return nil, lspError(r.c, err), false, nil
	}
	return locs, Result{}, true, nil
}
