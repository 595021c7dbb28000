package tools

import (
	"bufio"
	"context"
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/editor"
)

//go:embed read_lints.md
var readLintsDesc string

type readLintsParams struct {
	Reason string `json:"reason"`
	Path   string `json:"path,omitempty" jsonschema:"File or directory path (empty for the whole project)"`
}

// Diagnostics returns diagnostics for workspace-relative paths (empty: all).
type Diagnostics func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error)

// NewReadLints is read_lints (coding-team-tools.md): the editor's
// diagnostics when the session has an editor's (SessionConfig.Diagnostics),
// otherwise the project's own checker output (go vet for Go modules).
func NewReadLints() Tool {
	return newTool("read_lints", readLintsDesc, ReadOnly, runReadLints)
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
	if source == nil {
		source = func(ctx context.Context, paths []string) ([]editor.DiagnosticItem, error) {
			return vetDiagnostics(ctx, s.root.Dir(), paths)
		}
	}
	items, err := source(ctx, paths)
	if err != nil {
		return opError("diagnostics are not available: " + err.Error()), nil
	}
	if items == nil {
		items = []editor.DiagnosticItem{}
	}
	return jsonResult(map[string]any{"diagnostics": items}, false), nil
}

// vetLine is one `go vet` finding: file:line:col: message.
var vetLine = regexp.MustCompile(`^(?:\./)?([^:\s]+\.go):(\d+):(\d+): (.+)$`)

// vetDiagnostics runs go vet in a Go module (a worktree has no editor) and
// parses its findings; other projects have no built-in checker here.
func vetDiagnostics(ctx context.Context, dir string, paths []string) ([]editor.DiagnosticItem, error) {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return nil, errNoChecker
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "vet", "./...")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput() // vet exits non-zero when it finds something
	var items []editor.DiagnosticItem
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		m := vetLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil || !underAny(m[1], paths) {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		items = append(items, editor.DiagnosticItem{File: m[1], Line: line, Column: col, Severity: "warning", Message: m[4], Source: "go vet"})
	}
	return items, nil
}

var errNoChecker = checkerError("no editor is attached and the project is not a Go module: run the project's build or linter with shell")

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
