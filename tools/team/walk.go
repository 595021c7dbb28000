package team

import (
	"context"
	"errors"
	"io/fs"
	"strings"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

// walkLimit bounds the entries list_files and find_files list.
const walkLimit = 1000

// walkDir walks the directory dir of the root (ignored files skipped,
// never leaving the root), calling fn with each entry's path and depth
// below dir (1: a direct child); maxDepth 0 is unlimited. ok false means
// res is the answer (dir missing, not a directory, outside the root).
func walkDir(ctx context.Context, s *tools.Session, dir string, maxDepth int, zero map[string]any, fn func(rel string, d fs.DirEntry, depth int)) (tools.Result, bool, error) {
	if dir == "" {
		dir = "."
	}
	rel, err := s.Root().Clean(dir)
	if err != nil {
		return failure("invalid_path", err.Error(), zero), false, nil
	}
	fi, err := s.Root().Stat(rel)
	if errors.Is(err, workspace.ErrOutside) {
		return failure("invalid_path", err.Error(), zero), false, nil
	}
	if err != nil || !fi.IsDir() {
		return failure("directory_not_found", "Directory not found: "+dir+"; list_files of the root shows what exists", zero), false, nil
	}
	base := 0
	if rel != "." {
		base = strings.Count(rel, "/") + 1
	}
	err = s.Ignore().WalkConfined(ctx, rel, func(r string, d fs.DirEntry) error {
		if r == rel {
			return nil
		}
		depth := strings.Count(r, "/") + 1 - base
		if _, blocked := s.Gate().PathBlocked(r); blocked {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		fn(r, d, depth)
		if d.IsDir() && maxDepth > 0 && depth >= maxDepth {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, false, ctx.Err()
		}
		return failure("read_error", "listing "+dir+": "+err.Error(), zero), false, nil
	}
	return tools.Result{}, true, nil
}
