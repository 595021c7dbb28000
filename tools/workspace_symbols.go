package tools

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/langserver"
)

type workspaceSymbolsParams struct {
	Reason     string `json:"reason"`
	Query      string `json:"query" jsonschema:"Symbol name or part of it (servers match fuzzily: NewSrv finds NewServer)"`
	MaxResults int    `json:"maxResults,omitempty" jsonschema:"Most symbols to return (default 50, at most 500)"`
}

func newWorkspaceSymbols() Tool {
	return newTool("workspace_symbols", describe("workspace_symbols"), ReadOnly, runWorkspaceSymbols).declare(EffectSearch, CategoryReadOnly)
}

func runWorkspaceSymbols(ctx context.Context, s *Session, p workspaceSymbolsParams) (Result, error) {
	limit := p.MaxResults
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 500)
	var syms []langserver.Symbol
	var problems []string
	asked := 0
	for _, srv := range langserver.Known() {
		if !s.hasMarker(srv) {
			continue
		}
		if _, err := srv.Path(); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		pool := s.langServers()
		if pool == nil {
			return opError("the session has ended: no language server is started for it"), nil
		}
		asked++
		c := pool.Client(s.root.Dir(), srv)
		raw, res, ok, err := s.lspCall(ctx, c, "", "workspace/symbol", protocol.WorkspaceSymbolParams{Query: p.Query})
		if err != nil {
			return res, err
		}
		if !ok {
			problems = append(problems, res.Output)
			continue
		}
		found, err := langserver.Symbols(raw, "")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", srv.Name, err))
			continue
		}
		syms = append(syms, found...)
	}
	if asked == 0 && len(problems) == 0 {
		return opError("no language server for this project: Autarch looks for go.mod (gopls), package.json or tsconfig.json (typescript-language-server), pyproject.toml or setup.py (pyright), Cargo.toml (rust-analyzer) at the worktree root; use search_code or grep"), nil
	}
	if asked == 0 || len(syms) == 0 && len(problems) > 0 {
		return opError(strings.Join(problems, "; ")), nil
	}
	out, left := s.symbolsOf(syms, limit)
	res := map[string]any{"symbols": out, "count": len(out)}
	if left > 0 {
		res["truncated"] = fmt.Sprintf("%d more; narrow the query or raise maxResults", left)
	}
	if len(problems) > 0 {
		res["errors"] = strings.Join(problems, "; ")
	}
	return jsonResult(res, false), nil
}

// hasMarker reports whether the worktree root has one of srv's markers.
func (s *Session) hasMarker(srv langserver.Server) bool {
	for _, m := range srv.Markers {
		if _, err := s.root.Stat(m); err == nil {
			return true
		}
	}
	return false
}
