package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/autarch-dev/autarch/langserver"
)

// reportLangServers lists the language servers the code intelligence
// tools (go_to_definition, find_references, rename_symbol…) use: where
// each was found, or how to install it. A missing server is no failure:
// the tools then answer that there is none.
func reportLangServers(w io.Writer) {
	fmt.Fprintln(w, "== language servers (code intelligence tools)")
	for _, srv := range langserver.Known() {
		exts := make([]string, 0, len(srv.Languages))
		for _, e := range []string{".go", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".pyi", ".rs"} {
			if _, ok := srv.Languages[e]; ok {
				exts = append(exts, e)
			}
		}
		if p, err := srv.Path(); err == nil {
			fmt.Fprintf(w, "%s (%s): %s\n", srv.Name, strings.Join(exts, " "), p)
			continue
		}
		fmt.Fprintf(w, "%s (%s): not found on PATH; install with `%s`\n", srv.Name, strings.Join(exts, " "), srv.Install)
	}
}
