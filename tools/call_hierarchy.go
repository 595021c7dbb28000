package tools

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/langserver"
)

type callHierarchyParams struct {
	Reason string `json:"reason"`
	symbolAt
	Direction string `json:"direction" jsonschema:"incoming (who calls it) or outgoing (what it calls)"`
}

// lspCall is one caller or callee and where the calls are.
type lspCallSite struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	lspLocation
	// Calls are the lines of the calls: in the caller for incoming calls,
	// in the symbol itself for outgoing ones.
	Calls []lspLocation `json:"calls,omitempty"`
}

func newCallHierarchy() Tool {
	return newTool("call_hierarchy", describe("call_hierarchy"), ReadOnly, runCallHierarchy).declare(EffectSearch, CategoryReadOnly)
}

func runCallHierarchy(ctx context.Context, s *Session, p callHierarchyParams) (Result, error) {
	if p.Direction != "incoming" && p.Direction != "outgoing" {
		return opError(`direction must be "incoming" (who calls it) or "outgoing" (what it calls)`), nil
	}
	r, res, ok, err := s.symbolRequest(ctx, p.symbolAt, "textDocument/prepareCallHierarchy", func(at protocol.TextDocumentPositionParams) any {
		return protocol.CallHierarchyPrepareParams{TextDocumentPositionParams: at}
	})
	if !ok {
		return res, err
	}
	c := r.c
	items, err := langserver.CallItems(r.raw)
	if err != nil {
		return lspError(c, err), nil
	}
	if len(items) == 0 {
		return opError(p.Symbol + " on that line is not a function or method the language server can follow calls of; give a function's name"), nil
	}
	item := items[0]
	method := "callHierarchy/incomingCalls"
	if p.Direction == "outgoing" {
		method = "callHierarchy/outgoingCalls"
	}
	raw, res, ok, err := s.lspCall(ctx, c, r.rel, method, map[string]json.RawMessage{"item": item.Raw})
	if !ok {
		return res, err
	}
	calls, err := langserver.Calls(raw, p.Direction == "incoming")
	if err != nil {
		return lspError(c, err), nil
	}
	out := []lspCallSite{}
	outside := 0
	for _, call := range calls {
		site, ok := s.callSite(call.Item)
		if !ok {
			outside++
			continue
		}
		inURI := call.Item.URI // incoming: the ranges are in the caller
		if p.Direction == "outgoing" {
			inURI = item.URI
		}
		for _, r := range call.FromRanges {
			locs, _ := s.locationsOf([]protocol.Location{{URI: inURI, Range: r}})
			site.Calls = append(site.Calls, locs...)
		}
		out = append(out, site)
	}
	self, _ := s.callSite(item)
	result := map[string]any{"symbol": self, "direction": p.Direction, "calls": out, "count": len(out)}
	if outside > 0 {
		result["outside_worktree"] = outside
	}
	return jsonResult(result, false), nil
}

// callSite is a call hierarchy item in the worktree (ok=false outside).
func (s *Session) callSite(it langserver.CallItem) (lspCallSite, bool) {
	locs, _ := s.locationsOf([]protocol.Location{{URI: it.URI, Range: it.SelectionRange}})
	if len(locs) == 0 {
		return lspCallSite{}, false
	}
	name := it.Name
	if !utf8.ValidString(name) {
		name = "?"
	}
	return lspCallSite{Name: name, Kind: langserver.SymbolKindName(it.Kind), lspLocation: locs[0]}, true
}
