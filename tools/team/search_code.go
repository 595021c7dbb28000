package team

import (
	"context"
	"fmt"
	"path"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools"
)

// search_code limits.
const (
	searchDefault = 20
	searchMax     = 500
)

type searchCodeParams struct {
	Reason      string `json:"reason"`
	Query       string `json:"query" jsonschema:"Search pattern (a regular expression, Go syntax)"`
	Path        string `json:"path,omitempty" jsonschema:"Subdirectory to search (default: the root)"`
	FilePattern string `json:"filePattern,omitempty" jsonschema:"Glob for files, e.g. *.ts (on the file name; with a / on the path)"`
	MaxResults  *int   `json:"maxResults,omitempty" jsonschema:"Limit results (default: 20)"`
}

type codeMatch struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Content string `json:"content"`
}

func newSearchCode() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectSearch, Category: tools.CategoryReadOnly}, "search_code", describe("search_code"), tools.ReadOnly, searchCode)
}

func searchCode(ctx context.Context, s *tools.Session, p searchCodeParams) (tools.Result, error) {
	zero := map[string]any{"matches": []codeMatch{}, "totalMatches": 0, "truncated": false}
	max, res, ok := maxResults(p.MaxResults, searchDefault, searchMax, zero)
	if !ok {
		return res, nil
	}
	m, err := tools.NewMatcher(p.Query, true)
	if p.Query == "" || err != nil {
		return failure("invalid_query", fmt.Sprintf("query %q is not a valid regular expression (Go syntax): %v", p.Query, err), zero), nil
	}
	if p.FilePattern != "" && !doublestar.ValidatePattern(p.FilePattern) {
		return failure("invalid_query", fmt.Sprintf("filePattern %q is not a valid glob (e.g. *.ts, src/**/*.go)", p.FilePattern), zero), nil
	}
	glob, res, ok := underDir(s, p.Path, zero)
	if !ok {
		return res, nil
	}
	all, err := tools.Search(ctx, s.Root(), s.Ignore(), s.Gate(), m, glob)
	if err != nil {
		return tools.Result{}, err
	}
	if p.FilePattern != "" {
		kept := all[:0]
		for _, g := range all {
			if matchFile(p.FilePattern, g.FilePath) {
				kept = append(kept, g)
			}
		}
		all = kept
	}
	page := all[:min(len(all), max)]
	tools.FillLines(s.Root(), s.Gate(), page)
	out := make([]codeMatch, len(page))
	for i, g := range page {
		out[i] = codeMatch{File: g.FilePath, Line: g.LineNumber, Content: g.Line}
	}
	return tools.JSONResult(map[string]any{"matches": out, "totalMatches": len(all), "truncated": len(all) > len(page)}, false), nil
}

// underDir turns a directory parameter into a glob for tools.Search ("":
// everything); ok false means res is the answer.
func underDir(s *tools.Session, dir string, zero map[string]any) (string, tools.Result, bool) {
	rel, res, ok := subDir(s, dir, zero)
	if rel == "" {
		return "", res, ok
	}
	return rel + "/**", res, ok
}

// subDir cleans a directory parameter: "" for the whole repository; ok
// false means res is the answer.
func subDir(s *tools.Session, dir string, zero map[string]any) (string, tools.Result, bool) {
	if dir == "" || dir == "." {
		return "", tools.Result{}, true
	}
	rel, err := s.Root().Clean(dir)
	if err != nil {
		return "", failure("invalid_path", err.Error(), zero), false
	}
	if rel == "." {
		return "", tools.Result{}, true
	}
	return rel, tools.Result{}, true
}

// matchFile matches a glob on a file's name, or on its path when the glob
// has a '/'.
func matchFile(glob, rel string) bool {
	if path.Base(glob) == glob {
		ok, _ := path.Match(glob, path.Base(rel))
		return ok
	}
	ok, _ := doublestar.Match(glob, rel)
	return ok
}
