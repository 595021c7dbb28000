package swarm

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/autarch-dev/autarch/tools"
	"github.com/autarch-dev/autarch/workspace"
)

type fsListParams struct {
	Reason     string `json:"reason"`
	Dir        string `json:"dir,omitempty" jsonschema:"Directory to list, relative to the project root (default .)"`
	Pattern    string `json:"pattern,omitempty" jsonschema:"Glob on the file name (on the path when it has a /), or regex:EXPR on the path"`
	MaxResults *int   `json:"max_results,omitempty" jsonschema:"At most this many files (default 200)"`
}

func newFSList(b binding) tools.Tool {
	return define(b, tools.Traits{Effect: tools.EffectRead, Category: tools.CategoryReadOnly}, "fs_list", func(ctx context.Context, sess *tools.Session, p fsListParams) (any, error) {
		limit, err := positive(p.MaxResults, 200, "max_results")
		if err != nil {
			return nil, err
		}
		match, err := fileMatcher(p.Pattern)
		if err != nil {
			return nil, err
		}
		files := newFirstN[string](limit)
		err = walkFiles(ctx, sess, p.Dir, func(rel string) error {
			if match(rel) {
				files.add(rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out := files.answer("files")
		if files.total == 0 && p.Pattern != "" && !strings.HasPrefix(p.Pattern, "regex:") && regexp.QuoteMeta(p.Pattern) != p.Pattern && !strings.ContainsAny(p.Pattern, "*?[{") {
			out["hint"] = "pattern is a glob (e.g. *.py); write regex:" + p.Pattern + " for a regular expression"
		}
		return out, nil
	})
}

// fileMatcher compiles fs_list's pattern: a glob on the name (on the
// path when it holds a /), or regex:EXPR on the path; "" matches all.
func fileMatcher(pattern string) (func(rel string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if expr, ok := strings.CutPrefix(pattern, "regex:"); ok {
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, badInput("pattern %q: not a regular expression: %v", pattern, err)
		}
		return re.MatchString, nil
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, badInput("pattern %q is not a valid glob (e.g. *.py, src/**/*.go; regex:EXPR for a regular expression)", pattern)
	}
	if strings.Contains(pattern, "/") {
		return func(rel string) bool { ok, _ := doublestar.Match(pattern, rel); return ok }, nil
	}
	return func(rel string) bool { ok, _ := doublestar.Match(pattern, path.Base(rel)); return ok }, nil
}

// walkFiles calls fn with every file under dir (confined to the root,
// ignored files and the gate's sensitive paths left out).
func walkFiles(ctx context.Context, sess *tools.Session, dir string, fn func(rel string) error) error {
	if dir == "" {
		dir = "."
	}
	rel, err := sess.Root().Clean(dir)
	if err != nil {
		return badInput("%v", err)
	}
	fi, err := sess.Root().Stat(rel)
	if errors.Is(err, workspace.ErrOutside) {
		return badInput("%v", err)
	}
	if err != nil || !fi.IsDir() {
		return &Refusal{Err: ErrNotFound, Code: 404, Message: "directory not found: " + dir + "; fs_list of . shows what exists"}
	}
	err = sess.Ignore().Walk(ctx, rel, func(r string, d fs.DirEntry) error {
		if _, blocked := sess.Gate().PathBlocked(r); blocked {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			return fn(r)
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return &Refusal{Err: "read_error", Code: 500, Message: "listing " + dir + ": " + err.Error()}
	}
	return ctx.Err()
}

// positive reads an optional count argument.
func positive(p *int, def int, name string) (int, error) {
	if p == nil {
		return def, nil
	}
	if *p < 1 {
		return 0, badInput("%s must be 1 or more", name)
	}
	return *p, nil
}
