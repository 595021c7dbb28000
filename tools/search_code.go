package tools

import (
	"context"
	"fmt"
	"path"
)

type searchCodeParams struct {
	Reason       string `json:"reason"`
	Pattern      string `json:"pattern" jsonschema:"Regular expression"`
	Path         string `json:"path,omitempty" jsonschema:"Directory to search in (default: the root)"`
	FilePattern  string `json:"file_pattern,omitempty" jsonschema:"Glob on file names, e.g. '*.go' (default: all files)"`
	ContextLines *int   `json:"context_lines,omitempty" jsonschema:"Lines before and after each match (default: 2)"`
	MaxResults   *int   `json:"max_results,omitempty" jsonschema:"Result limit (default: 50)"`
}

type codeMatch struct {
	FilePath   string   `json:"file_path"`
	LineNumber int      `json:"line_number"`
	Context    []string `json:"context"`
}

func newSearchCode() Tool {
	return newTool("search_code", describe("search_code"), ReadOnly, runSearchCode).declare(EffectSearch, CategoryReadOnly)
}

func runSearchCode(ctx context.Context, s *Session, p searchCodeParams) (Result, error) {
	ctxLines, max := 2, 50
	if p.ContextLines != nil {
		ctxLines = *p.ContextLines
	}
	if p.MaxResults != nil {
		max = *p.MaxResults
	}
	if ctxLines < 0 || ctxLines > 20 || max < 1 || max > 500 {
		return errorResult("context_lines must be 0–20 and max_results 1–500"), nil
	}
	m, err := newMatcher(p.Pattern, true)
	if err != nil || p.Pattern == "" {
		return errorResult(fmt.Sprintf("Invalid regex pattern: %v", err)), nil
	}
	glob := ""
	if p.Path != "" && p.Path != "." {
		rel, err := s.root.Clean(p.Path)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		glob = rel + "/**"
	}
	all, err := Search(ctx, s.root, s.ignore, s.gate, m, glob)
	if err != nil {
		return Result{}, err
	}
	out := []codeMatch{}
	cache := map[string][]string{}
	for _, g := range all {
		if p.FilePattern != "" {
			if ok, _ := path.Match(p.FilePattern, path.Base(g.FilePath)); !ok {
				continue
			}
		}
		lines, ok := cache[g.FilePath]
		if !ok {
			// Read again and decided again: a file blocked since the search
			// shows nothing, not even context.
			lines = gatedLines(s.root, s.gate, g.FilePath)
			cache[g.FilePath] = lines
		}
		if lines == nil {
			continue
		}
		lo, hi := max0(g.LineNumber-1-ctxLines), min(len(lines), g.LineNumber+ctxLines)
		c := make([]string, 0, max0(hi-lo))
		for i := lo; i < hi; i++ {
			c = append(c, fmt.Sprintf("%d\t%s", i+1, lines[i]))
		}
		out = append(out, codeMatch{FilePath: g.FilePath, LineNumber: g.LineNumber, Context: c})
		if len(out) >= max {
			break
		}
	}
	return jsonResult(map[string]any{"results": out, "total": len(all)}, false), nil
}

func max0(n int) int { return max(0, n) }
