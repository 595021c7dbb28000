package tools

import (
	"context"
	_ "embed"
	"io/fs"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed glob_search.md
var globSearchDesc string

// globMax caps the paths one call returns.
const globMax = 1000

type globSearchParams struct {
	Reason  string `json:"reason"`
	Pattern string `json:"pattern" jsonschema:"Glob pattern to match files, e.g., '**/*.cs' or 'src/**/*.ts'"`
}

func newGlobSearch() Tool {
	return newTool("glob_search", globSearchDesc, ReadOnly, runGlobSearch)
}

func runGlobSearch(ctx context.Context, s *Session, p globSearchParams) (Result, error) {
	pattern := strings.TrimPrefix(strings.TrimSpace(p.Pattern), "./")
	if pattern == "" {
		return errorResult("Pattern cannot be empty: give a glob such as '**/*.go'"), nil
	}
	if !doublestar.ValidatePattern(pattern) {
		return errorResult("Invalid glob pattern: " + p.Pattern), nil
	}
	matches := []string{}
	err := s.ignore.Walk(ctx, ".", func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		if ok, _ := doublestar.Match(pattern, rel); ok {
			matches = append(matches, rel)
			if len(matches) >= globMax {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil && err != fs.SkipAll {
		return Result{}, err
	}
	return jsonResult(matches, false), nil
}
