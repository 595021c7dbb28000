package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/autarch-dev/autarch/index"
	"github.com/autarch-dev/autarch/tools"
)

func searchVerb() verb {
	return verb{
		name:    "search",
		usage:   "autarch search [--root DIR] [--json] [--max N] [--weight GLOB:W ...] (QUERY | --queries FILE.jsonl)",
		summary: "search the code index (the semantic_search tool's results)",
		run:     runSearch,
	}
}

// weightsFlag collects repeated --weight GLOB:W flags.
type weightsFlag []string

func (w *weightsFlag) String() string     { return strings.Join(*w, ",") }
func (w *weightsFlag) Set(v string) error { *w = append(*w, v); return nil }

var _ flag.Value = (*weightsFlag)(nil)

func runSearch(ctx context.Context, io stdio, args []string) int {
	fs := newFlagSet("search", io)
	root := fs.String("root", ".", "workspace to search")
	asJSON := fs.Bool("json", false, "print the semantic_search JSON result")
	max := fs.Int("max", tools.SearchDefaultResults, fmt.Sprintf("results per query (1-%d)", tools.SearchMaxResults))
	queries := fs.String("queries", "", "JSONL file of {\"_id\",\"text\"} rows; prints {\"_id\",\"results\"} rows")
	var weights weightsFlag
	fs.Var(&weights, "weight", "pattern weight GLOB:W (repeatable; 0 excludes)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	query := strings.TrimSpace(strings.Join(fs.Args(), " "))
	switch {
	case *queries == "" && query == "":
		fmt.Fprintln(io.err, "autarch search: give a QUERY or --queries FILE.jsonl\nusage: "+searchVerb().usage)
		return 2
	case *queries != "" && query != "":
		fmt.Fprintln(io.err, "autarch search: give either a QUERY or --queries FILE, not both")
		return 2
	case *max < 1 || *max > tools.SearchMaxResults:
		fmt.Fprintf(io.err, "autarch search: --max %d is out of range: use 1 to %d\n", *max, tools.SearchMaxResults)
		return 2
	}
	pw, err := tools.ParseWeights(weights)
	if err != nil {
		return fail(io, "search", 2, err)
	}
	ix, _, err := openIndex(ctx, io, *root, false)
	if err != nil {
		return fail(io, "search", 1, err)
	}
	search := func(text string) ([]tools.SearchHit, error) {
		q := index.Query{Text: text, Max: *max}
		for _, w := range pw {
			q.Weights = append(q.Weights, index.Weight{Glob: w.Glob, Weight: w.Weight})
		}
		hits, err := ix.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		ix.Snippets(hits, 30)
		out := []tools.SearchHit{}
		for _, h := range hits {
			out = append(out, tools.SearchHit{FilePath: h.Path, StartLine: h.Start, EndLine: h.End, Snippet: h.Snippet, Score: h.Score, AdjustedScore: h.AdjustedScore})
		}
		return out, nil
	}
	if *queries != "" {
		return searchBatch(io, *queries, search)
	}
	hits, err := search(query)
	if err != nil {
		return fail(io, "search", 2, err)
	}
	if *asJSON {
		return printJSON(io, hits)
	}
	if len(hits) == 0 {
		fmt.Fprintln(io.err, "autarch search: "+noHits(query, ix.Stats(), len(pw) > 0))
		return 0
	}
	for _, h := range hits {
		fmt.Fprintf(io.out, "%s:%d-%d  %.3f\n", h.FilePath, h.StartLine, h.EndLine, h.AdjustedScore)
	}
	return 0
}

// noHits says that a search found nothing, in an index of what size, and
// what to try next.
func noHits(query string, st index.Stats, weighted bool) string {
	if st.Files == 0 {
		return fmt.Sprintf("nothing matches %q: the index holds no files (an empty folder, or every file is ignored, binary or too large); add code, or check .gitignore and .autarchignore", query)
	}
	msg := fmt.Sprintf("nothing matches %q in the %s indexed: try other words, such as a name from the code", query, plural(st.Files, "file"))
	if weighted {
		msg += ", or drop the --weight patterns (a weight of 0 excludes files)"
	}
	return msg
}

func searchBatch(io stdio, path string, search func(string) ([]tools.SearchHit, error)) int {
	f, err := os.Open(path)
	if err != nil {
		return fail(io, "search", 2, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	w := bufio.NewWriter(io.out)
	defer w.Flush()
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil || q.ID == "" {
			fmt.Fprintf(io.err, "autarch search: %s:%d: want {\"_id\": ..., \"text\": ...}\n", path, n)
			return 2
		}
		hits, err := search(q.Text)
		if err != nil {
			hits = []tools.SearchHit{}
		}
		b, _ := json.Marshal(map[string]any{"_id": q.ID, "results": hits})
		w.Write(b)
		w.WriteByte('\n')
	}
	return 0
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
