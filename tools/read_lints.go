package tools

import (
	"context"
	"os"
	"path"
	"strings"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/tools/verify"
)

type readLintsParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path,omitempty" jsonschema:"File or directory path (empty for the whole project)"`
}

// Diagnostics returns diagnostics for workspace-relative paths (empty: all).
type Diagnostics func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error)

// NewReadLints is read_lints (coding-team-tools.md): the editor's
// diagnostics when the session has an editor's (SessionConfig.Diagnostics),
// otherwise the findings of the project's linters as run_lint runs them
// (in the sandbox, for every language run_lint detects).
func NewReadLints() Tool {
	return newTool("read_lints", describe("read_lints"), ReadOnly, runReadLints).declare(EffectRead, CategoryReadOnly)
}

func runReadLints(ctx context.Context, s *Session, p readLintsParams) (Result, error) {
	var paths []string
	if p.Path != "" && p.Path != "." {
		rel, err := s.root.Clean(p.Path)
		if err != nil {
			return opError(err.Error()), nil
		}
		paths = []string{rel}
	}
	source := s.cfg.Diagnostics
	if source == nil && s.cfg.DryRun {
		return s.dryRunLints(p), nil // the linters are processes: recorded, not run
	}
	if source == nil {
		source = s.lintDiagnostics
	}
	items, err := source(ctx, paths)
	if err != nil && len(items) == 0 {
		return opError("diagnostics are not available: " + err.Error()), nil
	}
	if items == nil {
		items = []editor.DiagnosticItem{}
	}
	out := map[string]any{"diagnostics": items}
	if err != nil {
		// Some linters ran, others could not: their findings are missing.
		out["errors"] = err.Error()
	}
	return jsonResult(out, false), nil
}

// lintDiagnostics runs the project's linters (run_lint's, sandboxed) in a
// workspace without an editor, for any language run_lint knows. A linter
// that could not run (not installed, failed to start) is an error even when
// others found issues, returned with their items: no lints must never stand
// for a linter that did not run.
func (s *Session) lintDiagnostics(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error) {
	dir, rel := ".", ""
	if len(paths) == 1 {
		dir, rel = paths[0], paths[0]
		if fi, err := os.Stat(s.root.Abs(rel)); err == nil && !fi.IsDir() {
			dir = path.Dir(rel)
		}
	}
	reports, found := s.lint(ctx, dir, rel, false)
	if !found {
		return nil, errNoChecker
	}
	var items []editor.DiagnosticItem
	var errs []string
	for _, r := range reports {
		if r.Status == verify.StatusError {
			errs = append(errs, r.Check+": "+r.Error)
			continue
		}
		for _, is := range append(r.Issues, r.PreExistingIssues...) {
			if !underAny(is.File, paths) {
				continue
			}
			items = append(items, editor.DiagnosticItem{File: is.File, Line: is.Line, Column: is.Column, Severity: is.Severity,
				Message: is.Message, Source: r.Check})
		}
	}
	if len(errs) > 0 {
		return items, checkerError(strings.Join(errs, "; "))
	}
	return items, nil
}

var errNoChecker = checkerError("no editor is attached and no linter was detected (go vet, golangci-lint, eslint, biome, ruff, clippy): run the project's build or linter with shell")

type checkerError string

func (e checkerError) Error() string { return string(e) }

// underAny reports whether file is one of paths or inside one (no paths: all).
func underAny(file string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if file == p || strings.HasPrefix(file, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return false
}
