package team

import (
	"context"
	"io/fs"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools"
)

type listFilesParams struct {
	Reason    string `json:"reason"`
	Path      string `json:"path,omitempty" jsonschema:"Directory path (default: the root)"`
	Pattern   string `json:"pattern,omitempty" jsonschema:"Glob filter, e.g. *.go (on names; with a / on paths)"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"Include subdirectories"`
	MaxDepth  *int   `json:"maxDepth,omitempty" jsonschema:"Recursion depth limit (1: the directory's own entries)"`
}

type fileEntry struct {
	Path string `json:"path"`
	Type string `json:"type"`
	Size *int64 `json:"size,omitempty"`
}

func newListFiles() tools.Tool {
	return tools.DefineWith(tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "list_files", describe("list_files"), tools.ReadOnly, listFiles)
}

func listFiles(ctx context.Context, s *tools.Session, p listFilesParams) (tools.Result, error) {
	zero := map[string]any{"files": []fileEntry{}, "totalCount": 0}
	if p.Pattern != "" && !doublestar.ValidatePattern(p.Pattern) {
		return failure("invalid_pattern", "pattern "+p.Pattern+" is not a valid glob (e.g. *.go, src/**/*.ts)", zero), nil
	}
	depth := 1
	if p.Recursive {
		depth = 0
		if p.MaxDepth != nil {
			depth = *p.MaxDepth
		}
	}
	if p.MaxDepth != nil && *p.MaxDepth < 1 {
		return failure("invalid_pattern", "maxDepth must be at least 1", zero), nil
	}
	files := []fileEntry{}
	total := 0
	res, ok, err := walkDir(ctx, s, p.Path, depth, zero, func(rel string, d fs.DirEntry, _ int) {
		if p.Pattern != "" && !matchFile(p.Pattern, rel) {
			return
		}
		total++
		if len(files) >= walkLimit {
			return
		}
		e := fileEntry{Path: rel, Type: "file"}
		if d.IsDir() {
			e.Type = "directory"
		} else if fi, err := s.Root().Lstat(rel); err == nil {
			size := fi.Size()
			e.Size = &size
		}
		files = append(files, e)
	})
	if err != nil || !ok {
		return res, err
	}
	out := map[string]any{"files": files, "totalCount": total}
	if total > len(files) {
		out["truncated"] = true
	}
	return tools.JSONResult(out, false), nil
}
