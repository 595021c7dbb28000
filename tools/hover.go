package tools

import (
	"context"

	"github.com/autarch-dev/autarch/langserver"
)

type hoverParams struct {
	Reason string `json:"reason"`
	symbolAt
}

// maxHover bounds a hover's text.
const maxHover = 8000

func newHover() Tool {
	return newTool("hover", describe("hover"), ReadOnly, runHover).declare(EffectRead, CategoryReadOnly)
}

func runHover(ctx context.Context, s *Session, p hoverParams) (Result, error) {
	r, res, ok, err := s.symbolRequest(ctx, p.symbolAt, "textDocument/hover", nil)
	if !ok {
		return res, err
	}
	text := langserver.HoverText(r.raw)
	if text == "" {
		return jsonResult(map[string]any{"hover": "", "note": "the language server has nothing to show for " + p.Symbol + " here"}, false), nil
	}
	return jsonResult(map[string]any{"hover": clip(text, maxHover)}, false), nil
}
