package tools

import (
	"context"
	_ "embed"
	"errors"
	"io/fs"
	"path"

	"github.com/autarch-dev/autarch/workspace"
)

//go:embed find_files.md
var findFilesDesc string

type findFilesParams struct {
	Reason    string `json:"reason"`
	Pattern   string `json:"pattern" jsonschema:"File name glob, e.g. '*.yaml', 'test_*.py', 'README*'"`
	Path      string `json:"path,omitempty" jsonschema:"Directory to search under (default: the root)"`
	Recursive *bool  `json:"recursive,omitempty" jsonschema:"Search subdirectories (default: true)"`
}

func newFindFiles() Tool {
	return newTool("find_files", findFilesDesc, ReadOnly, runFindFiles).declare(EffectSearch, CategoryReadOnly)
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
	rel, err := s.root.Clean(dir)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	fi, err := s.root.Stat(rel)
	if errors.Is(err, workspace.ErrOutside) {
		return errorResult(err.Error()), nil
	}
	if err != nil || !fi.IsDir() {
		return errorResult("Directory not found: " + dir), nil
	}
	recursive := p.Recursive == nil || *p.Recursive
	found := []string{}
	err = s.ignore.WalkConfined(ctx, rel, func(r string, d fs.DirEntry) error {
		if d.IsDir() {
			if !recursive {
				return fs.SkipDir
			}
			return nil
		}
		if ok, _ := path.Match(p.Pattern, d.Name()); ok {
			found = append(found, r)
			if len(found) >= globMax {
				return fs.SkipAll
			}
		}
		return nil
	})
	if res, failed := walkFailed(err, dir); failed {
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	return jsonResult(found, false), nil
}
