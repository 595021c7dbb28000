package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/codesearch"
	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/workspace"
)

func indexVerb() verb {
	return verb{
		name:    "index",
		usage:   "autarch index [--root DIR] [--watch]",
		summary: "build or refresh the code search index of a workspace",
		run:     runIndex,
	}
}

func runIndex(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("index", io)
	root := fs.String("root", ".", "workspace to index")
	watch := fs.Bool("watch", false, "keep running and re-index files as they change (Ctrl-C stops)")
	if code, ok := parseFlagsOnly(io, fs, "index", args, ""); !ok {
		return code
	}
	ix, dir, err := openIndex(ctx, io, *root, true)
	if err != nil {
		return fail(io, "index", 1, err)
	}
	st := ix.Stats()
	fmt.Fprintf(io.out, "indexed %d files (%d chunks, %d terms) into %s\n", st.Files, st.Chunks, st.Terms, dir)
	if !*watch {
		return 0
	}
	r, err := workspace.Open(*root)
	if err != nil {
		return fail(io, "index", 1, err)
	}
	fmt.Fprintln(io.err, "watching for changes (Ctrl-C stops)")
	w := &watcher{root: r, ignore: workspace.NewIgnore(r), ix: ix, dir: dir, debounce: 100 * time.Millisecond,
		applied: func(rels []string, took time.Duration) {
			fmt.Fprintf(io.out, "updated %d file(s) in %s: %s\n", len(rels), took.Round(time.Millisecond), strings.Join(rels, ", "))
		}}
	if err := w.run(ctx); err != nil {
		return fail(io, "index", 1, err)
	}
	return 0
}

// openIndex loads (or builds) the index of root, with a progress line on
// stderr when progress is true.
func openIndex(ctx context.Context, io stdio, root string, progress bool) (*index.Index, string, error) {
	r, err := workspace.Open(root)
	if err != nil {
		return nil, "", err
	}
	dir, err := index.Location(r.Dir())
	if err != nil {
		return nil, "", err
	}
	ix := index.New(r)
	ix.SetHistorySource(codesearch.GitHistory(ctx, r.Dir()))
	if err := embedFromEnv(ctx, ix); err != nil {
		return nil, "", err
	}
	start := time.Now()
	var report index.Progress
	if progress {
		last := time.Time{}
		report = func(done, total int) {
			if time.Since(last) > 200*time.Millisecond || done == total {
				fmt.Fprintf(io.err, "\rindexing %d/%d files", done, total)
				last = time.Now()
			}
		}
	}
	note := func(msg string) { fmt.Fprintf(io.err, "autarch: index: %s\n", msg) }
	if err := index.Open(ctx, ix, dir, report, note); err != nil {
		return nil, "", err
	}
	if progress {
		fmt.Fprintf(io.err, " (%s)\n", time.Since(start).Round(time.Millisecond))
	}
	return ix, dir, nil
}
