package tools

import (
	"context"
	"io/fs"
	"path"
)

type findFilesParams struct {
	Reason    string `json:"reason"`
	Pattern   string `json:"pattern" jsonschema:"File name glob, e.g. '*.yaml', 'test_*.py', 'README*'"`
	Path      string `json:"path,omitempty" jsonschema:"Directory to search under (default: the root)"`
	Recursive *bool  `json:"recursive,omitempty" jsonschema:"Search subdirectories (default: true)"`
}

func newFindFiles() Tool {
	return newTool("find_files", describe("find_files"), ReadOnly, runFindFiles).declare(EffectSearch, CategoryReadOnly)
}

func runFindFiles(ctx context.Context, s *Session, p findFilesParams) (Result, error) {
	if msg := globTooLong(p.Pattern); msg != "" {
		return errorResult(msg), nil
	}
	if _, err := path.Match(p.Pattern, ""); err != nil || p.Pattern == "" {
		return errorResult("Invalid file name pattern: " + p.Pattern), nil
	}
	dir := p.Path
	if dir == "" {
		dir = "."
	}
	rel, isDir, refused := s.walkStart(dir)
	if refused != "" {
		return errorResult(refused), nil
	}
	if !isDir {
		return errorResult("Directory not found: " + dir), nil
	}
	return s.collectFiles(ctx, rel, dir, p.Recursive != nil && !*p.Recursive, func(_ string, d fs.DirEntry) bool {
		ok, _ := path.Match(p.Pattern, d.Name())
		return ok
	})
}
