package team

import (
	"context"
	"io/fs"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools"
)

type findFilesParams struct {
	Reason  string `json:"reason"`
	Pattern string `json:"pattern" jsonschema:"Glob, e.g. *.yaml, test_*.py (on names; with a / on paths, e.g. src/**/*.ts)"`
	Path    string `json:"path,omitempty" jsonschema:"Base directory (default: the root)"`
}

func newFindFiles() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectSearch, Category: tools.CategoryReadOnly}, "find_files", describe("find_files"), tools.ReadOnly, findFiles)
}

func findFiles(ctx context.Context, s *tools.Session, p findFilesParams) (tools.Result, error) {
	zero := map[string]any{"files": []string{}, "totalCount": 0}
	if p.Pattern == "" || !doublestar.ValidatePattern(p.Pattern) {
		return failure("invalid_pattern", "pattern "+p.Pattern+" is not a valid glob (e.g. *.yaml, src/**/*.ts)", zero), nil
	}
	files := []string{}
	total := 0
	res, ok, err := walkDir(ctx, s, p.Path, 0, zero, func(rel string, d fs.DirEntry, _ int) {
		if d.IsDir() || !matchFile(p.Pattern, rel) {
			return
		}
		total++
		if len(files) < walkLimit {
			files = append(files, rel)
		}
	})
	if err != nil || !ok {
		return res, err
	}
	return tools.JSONResult(map[string]any{"files": files, "totalCount": total}, false), nil
}
