package tools

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/autarch-dev/autarch/langserver"
)

// lspAfterWrite tells the language servers running for the files a write
// call touched their new contents (didOpen, didChange), and adds the
// servers' errors and warnings for them to the call's result, as
// "diagnostics" by file (what read_lints would report, without a separate
// call). Files whose server is not running are left alone: no write
// starts a server.
func (s *Session) lspAfterWrite(ctx context.Context, touched []string, res Result) Result {
	pool := s.langServers()
	if pool == nil {
		return res
	}
	servers := s.langServerList()
	byClient := map[*langserver.Client][]string{}
	for _, rel := range touched {
		srv, ok := langserver.ForFile(servers, rel)
		if !ok {
			continue
		}
		if c := pool.Running(s.root.Dir(), srv); c != nil {
			byClient[c] = append(byClient[c], rel)
		}
	}
	diags := map[string][]langserver.Diagnostic{}
	for c, rels := range byClient {
		maps.Copy(diags, s.settledDiagnostics(ctx, c, rels))
	}
	if len(diags) == 0 {
		return res
	}
	if out, ok := withJSONKey(res, "diagnostics", diags); ok {
		return out
	}
	b, _ := json.Marshal(diags)
	res.Output += "\n\nThe language server reports for the files written (fix these): " + string(b)
	return res
}
