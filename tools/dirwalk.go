package tools

import (
	"context"
	"errors"
	"io/fs"

	"github.com/autarch-dev/autarch/workspace"
)

// walkStart cleans dir, the directory a listing or search starts from:
// rel is where to walk, isDir false when it is no directory of the
// workspace; refused is the message for a path that leads outside it
// ("" when it does not).
func (s *Session) walkStart(dir string) (rel string, isDir bool, refused string) {
	rel, err := s.root.Clean(dir)
	if err != nil {
		return "", false, err.Error()
	}
	fi, err := s.root.Stat(rel)
	if errors.Is(err, workspace.ErrOutside) {
		return "", false, err.Error()
	}
	return rel, err == nil && fi.IsDir(), ""
}

// collectFiles walks the files under start (not into its subdirectories
// when flat) through the confined root and answers with the paths match
// keeps, at most globMax; display is how start is named in a refusal.
func (s *Session) collectFiles(ctx context.Context, start, display string, flat bool, match func(rel string, d fs.DirEntry) bool) (Result, error) {
	found := []string{}
	err := s.ignore.WalkConfined(ctx, start, func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if flat {
				return fs.SkipDir
			}
			return nil
		}
		if match(rel, d) {
			found = append(found, rel)
			if len(found) >= globMax {
				return fs.SkipAll
			}
		}
		return nil
	})
	if res, failed := walkFailed(err, display); failed {
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	return jsonResult(found, false), nil
}
