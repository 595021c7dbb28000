package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
)

// listMax caps the entries one call returns.
const listMax = 2000

type listDirectoryParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path,omitempty" jsonschema:"Path relative to project root (empty or '.' for root)"`
	Depth  *int   `json:"depth,omitempty" jsonschema:"Maximum depth to traverse (1 = immediate children, null = unlimited)"`
	Type   string `json:"type,omitempty" jsonschema:"Type of entries: 'files', 'directories', or 'all'"`

	unlimited bool
}

type dirEntry struct {
	Path        string `json:"path"`
	IsDirectory bool   `json:"is_directory"`
	Depth       int    `json:"depth"`
}

func newListDirectory() Tool {
	return newTool("list_directory", describe("list_directory"), ReadOnly, runListDirectory).declare(EffectRead, CategoryReadOnly)
}

func runListDirectory(ctx context.Context, s *Session, p listDirectoryParams) (Result, error) {
	path := p.Path
	if path == "" {
		path = "."
	}
	kind := p.Type
	if kind == "" {
		kind = "all"
	}
	if kind != "all" && kind != "files" && kind != "directories" {
		return errorResult("Invalid type '" + p.Type + "': use 'files', 'directories' or 'all'"), nil
	}
	maxDepth := 1
	if p.Depth != nil {
		maxDepth = *p.Depth
		if maxDepth < 1 {
			return errorResult("Invalid depth: use 1 or more, or null for unlimited"), nil
		}
	} else if p.unlimited {
		maxDepth = int(^uint(0) >> 1)
	}
	rel, isDir, refused := s.walkStart(path)
	if refused != "" {
		return errorResult(refused), nil
	}
	if !isDir || (rel != "." && s.ignore.Match(rel, true)) {
		return errorResult("Directory not found: " + p.Path), nil
	}
	base := 0
	if rel != "." {
		base = strings.Count(rel, "/") + 1
	}
	entries := []dirEntry{}
	// Listed through the confined root: a directory swapped for a symlink
	// mid-walk is skipped, a symlink is an entry and never followed.
	err := s.ignore.WalkConfined(ctx, rel, func(r string, d fs.DirEntry) error {
		depth := strings.Count(r, "/") + 1 - base
		if depth > maxDepth {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if kind == "files" && d.IsDir() || kind == "directories" && !d.IsDir() {
			return nil
		}
		entries = append(entries, dirEntry{Path: r, IsDirectory: d.IsDir(), Depth: depth})
		if len(entries) >= listMax {
			return fs.SkipAll
		}
		return nil
	})
	if res, failed := walkFailed(err, p.Path); failed {
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	return jsonResult(entries, false), nil
}

// UnmarshalJSON tells a missing depth (default 1) from depth: null (unlimited).
func (p *listDirectoryParams) UnmarshalJSON(data []byte) error {
	type plain listDirectoryParams
	if err := json.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(data, &raw) == nil {
		if d, ok := raw["depth"]; ok && string(d) == "null" {
			p.unlimited = true
		}
	}
	return nil
}

// walkFailed turns a confined walk's refusal of its start directory (it
// was swapped for a symlink leading outside, or for a file, or vanished,
// after the checks) into a result for the model; a cancelled context stays
// an error.
func walkFailed(err error, display string) (Result, bool) {
	switch {
	case err == nil || err == fs.SkipAll || ctxDone(err):
		return Result{}, false
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("Directory not found: " + display), true
	}
	return errorResult(err.Error()), true
}

func ctxDone(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
