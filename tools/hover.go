package tools

import (
	"context"
	_ "embed"

	"github.com/autarch-dev/autarch/langserver"
)

//go:embed hover.md
var hoverDesc string

type hoverParams struct {
	Reason string `json:"reason"`
	symbolAt
}

// maxHover bounds a hover's text.
const maxHover = 8000

func newHover() Tool {
	return newTool("hover", hoverDesc, ReadOnly, runHover)
}

func runHover(ctx context.Context, s *Session, p hoverParams) (Result, error) {
	rel, pos, res, ok := s.symbolPosition(p.symbolAt)
	if !ok {
		return res, nil
	}
	c, res, ok := s.langClient(rel)
	if !ok {
		return res, nil
	}
	raw, res, ok, err := s.lspCall(ctx, c, rel, "textDocument/hover", s.textDocPos(rel, pos))
	if !ok {
		return res, err
	}
	text := langserver.HoverText(raw)
	if text == "" {
		return jsonResult(map[string]any{"hover": "", "note": "the language server has nothing to show for " + p.Symbol + " here"}, false), nil
	}
	return jsonResult(map[string]any{"hover": clip(text, maxHover)}, false), nil
}
