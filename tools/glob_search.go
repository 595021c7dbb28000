package tools

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// globMax caps the paths one call returns.
const globMax = 1000

// maxGlobPattern caps a glob pattern's size (glob_search, find_files,
// grep's glob): matching costs the pattern's length times the path's for
// every file walked, and no real glob comes near it.
const maxGlobPattern = 1 << 10

// globTooLong is the refusal of an over-long glob pattern; "" when p is
// short enough.
func globTooLong(p string) string {
	if len(p) <= maxGlobPattern {
		return ""
	}
	return fmt.Sprintf("The glob pattern is %d bytes, more than the %d allowed: use a shorter pattern (e.g. '**/*.go' or 'src/**/test_*')",
		len(p), maxGlobPattern)
}

type globSearchParams struct {
	Reason  string `json:"reason"`
	Pattern string `json:"pattern" jsonschema:"Glob pattern to match files, e.g., '**/*.cs' or 'src/**/*.ts'"`
}

func newGlobSearch() Tool {
	return newTool("glob_search", describe("glob_search"), ReadOnly, runGlobSearch).declare(EffectSearch, CategoryReadOnly)
}

func runGlobSearch(ctx context.Context, s *Session, p globSearchParams) (Result, error) {
	pattern := strings.TrimPrefix(strings.TrimSpace(p.Pattern), "./")
	if pattern == "" {
		return errorResult("Pattern cannot be empty: give a glob such as '**/*.go'"), nil
	}
	if msg := globTooLong(pattern); msg != "" {
		return errorResult(msg), nil
	}
	if !doublestar.ValidatePattern(pattern) {
		return errorResult("Invalid glob pattern: " + p.Pattern), nil
	}
	// Walk only the pattern's literal directory ("src" of "src/**/*.ts"),
	// through the confined root: a base that leads outside the workspace
	// is refused, a symlink inside is never followed.
	start := "."
	if base, _ := doublestar.SplitPattern(pattern); base != "." && !strings.ContainsRune(pattern, '\\') {
		rel, isDir, refused := s.walkStart(base)
		if refused != "" {
			return errorResult(refused), nil
		}
		if !isDir || s.ignore.Match(rel, true) {
			return jsonResult([]string{}, false), nil
		}
		start = rel
	}
	return s.collectFiles(ctx, start, start, false, func(rel string, _ fs.DirEntry) bool {
		ok, _ := doublestar.Match(pattern, rel)
		return ok
	})
}
