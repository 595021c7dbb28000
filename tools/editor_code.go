package tools

import (
	"context"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/editor"
)

// editorLocations asks the editor's own language features
// (editor.MethodLanguageFeature) for the definitions or references of a
// symbol, when the session works on the user's own files in an editor
// that gives its diagnostics (the discussion agent in VS Code): no second
// language server. ok=false leaves the call to Autarch's language servers
// (another session, an editor that does not answer, a mistake in p, which
// the servers' path then reports).
func (s *Session) editorLocations(ctx context.Context, feature string, p symbolAt) ([]protocol.Location, bool) {
	if s.cfg.Editor == nil || s.cfg.Diagnostics == nil {
		return nil, false
	}
	rel, pos, _, ok := s.symbolPosition(p)
	if !ok {
		return nil, false
	}
	var res editor.LanguageFeatureResult
	err := s.cfg.Editor.Call(ctx, editor.MethodLanguageFeature, editor.LanguageFeatureParams{
		Feature: feature, Path: filepath.ToSlash(rel), Line: int(pos.Line), Character: int(pos.Character)}, &res)
	if err != nil {
		return nil, false
	}
	locs := make([]protocol.Location, 0, len(res.Locations))
	for _, l := range res.Locations {
		if !filepath.IsAbs(l.Path) {
			continue
		}
		at := protocol.Position{Line: uint32(max(l.Line, 0)), Character: uint32(max(l.Character, 0))}
		locs = append(locs, protocol.Location{URI: uri.File(l.Path), Range: protocol.Range{Start: at, End: at}})
	}
	return locs, true
}

// withoutDeclarations drops from locs the places of defs (a symbol's
// declaration among its references).
func withoutDeclarations(locs, defs []protocol.Location) []protocol.Location {
	return slices.DeleteFunc(locs, func(l protocol.Location) bool {
		return slices.ContainsFunc(defs, func(d protocol.Location) bool { return d.URI == l.URI && d.Range.Start == l.Range.Start })
	})
}
