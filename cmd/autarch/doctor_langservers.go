package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/langserver"
)

// reportLangServers lists the language servers the code intelligence
// tools (go_to_definition, find_references, rename_symbol…) use: where
// each was found, or how to install it. A missing server is no failure:
// the tools then answer that there is none.
func reportLangServers(w io.Writer, title string, servers []langserver.Server) {
	fmt.Fprintln(w, title)
	order := []string{".go", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".pyi", ".rs"}
	for _, srv := range servers {
		exts := make([]string, 0, len(srv.Languages))
		for _, e := range order {
			if _, ok := srv.Languages[e]; ok {
				exts = append(exts, e)
			}
		}
		for _, e := range slices.Sorted(maps.Keys(srv.Languages)) {
			if !slices.Contains(order, e) {
				exts = append(exts, e)
			}
		}
		p, err := srv.Path()
		switch {
		case err != nil:
			fmt.Fprintf(w, "%s (%s): not found on PATH; install with `%s`\n", srv.Name, strings.Join(exts, " "), srv.Install)
		case srv.Name == "rust-analyzer":
			// rustup installs a proxy that fails until the component is
			// added; the binary is asked for in "/" (a proxy started here
			// would follow this directory's rust-toolchain.toml), as the
			// tools start it, and run there too.
			real, err := langserver.RustAnalyzerExecutable(p)
			if err == nil && !runs(real, "--version") {
				err = fmt.Errorf("%s does not run", real)
			}
			var missing *langserver.NotInstalledError
			switch {
			case errors.As(err, &missing):
				fmt.Fprintf(w, "%s (%s): %s: %v\n", srv.Name, strings.Join(exts, " "), p, err)
				continue
			case err != nil:
				fmt.Fprintf(w, "%s (%s): %s: %v; install with `%s`\n", srv.Name, strings.Join(exts, " "), p, err, srv.Install)
				continue
			}
			fmt.Fprintf(w, "%s (%s): %s\n", srv.Name, strings.Join(exts, " "), real)
		default:
			fmt.Fprintf(w, "%s (%s): %s\n", srv.Name, strings.Join(exts, " "), p)
		}
	}
}

// runs reports whether path args, run in "/" (no project's files
// choose what runs), exits 0 within a few seconds.
func runs(path string, args ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	return cmd.Run() == nil
}
