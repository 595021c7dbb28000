package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/autarch-dev/autarch/langserver"
)

type renameSymbolParams struct {
	Reason string `json:"reason"`
	symbolAt
	NewName string `json:"newName" jsonschema:"The new name"`
}

// renameDiagnosticsWait bounds how long a rename (or any write) waits for the server's
// diagnostics of the files it changed to settle.
const renameDiagnosticsWait = 3 * time.Second

func newRenameSymbol() Tool {
	return newTool("rename_symbol", describe("rename_symbol")+worktreeNote, Write, runRenameSymbol).declare(EffectEdit, CategoryMutating)
}

// renamed is one file a rename changes.
type renamed struct {
	rel, before, after string
}

func runRenameSymbol(ctx context.Context, s *Session, p renameSymbolParams) (Result, error) {
	if strings.TrimSpace(p.NewName) == "" {
		return opError("newName is empty: give the symbol's new name"), nil
	}
	r, res, ok, err := s.symbolRequest(ctx, p.symbolAt, "textDocument/rename", func(at protocol.TextDocumentPositionParams) any {
		return protocol.RenameParams{TextDocumentPositionParams: at, NewName: p.NewName}
	})
	if !ok {
		return res, err
	}
	c := r.c
	edits, err := langserver.FileEdits(r.raw)
	if err != nil {
		return opError("the rename was not applied: " + err.Error()), nil
	}
	if len(edits) == 0 {
		return opError("the language server found nothing to rename at " + p.Symbol + " on that line"), nil
	}
	changes, res, ok := s.renameChanges(edits)
	if !ok {
		return res, nil
	}
	if err := s.writeAll(changes); err != nil {
		return errorResult("the rename was not applied: " + err.Error()), nil
	}
	var files []string
	var diff strings.Builder
	for _, ch := range changes {
		s.markWritten(ch.rel)
		s.MarkRead(ch.rel)
		files = append(files, ch.rel)
		diff.WriteString(UnifiedDiff(ch.rel, ch.before, ch.after, true))
	}
	out := map[string]any{"success": true, "files": files, "diff": diff.String()}
	if diags := s.settledDiagnostics(ctx, c, files); len(diags) > 0 {
		out["diagnostics"] = diags
	}
	return jsonResult(out, false), nil
}

// renameChanges computes every file's content after the edits, under the
// edit tools' rules: worktree files only, the secret gate, read before
// edit, protected paths, the caps and the code rules. Nothing is written
// unless every file passes.
func (s *Session) renameChanges(edits map[string][]protocol.TextEdit) ([]renamed, Result, bool) {
	var changes []renamed
	var unread, outside []string
	r := s.guardrails.Load().rules()
	newFiles := 0
	for abs, es := range edits {
		rel, ok := s.worktreeRel(protocolURI(abs))
		if !ok {
			outside = append(outside, abs)
			continue
		}
		rel, res, ok := s.resolve(rel)
		if !ok {
			return nil, res, false
		}
		before, res, ok := s.readText(rel, rel)
		if !ok {
			return nil, res, false
		}
		if !s.WasRead(rel) {
			unread = append(unread, rel)
		}
		if msg := r.checkProtected(s, rel); msg != "" {
			return nil, opError("Guardrail: " + msg + "; the rename was not applied"), false
		}
		after, err := langserver.ApplyEdits(before, es)
		if err != nil {
			return nil, opError(fmt.Sprintf("the language server's edit of %s does not apply (%v): the rename was not applied", rel, err)), false
		}
		if msg := r.codeRuleBroken(rel, after); msg != "" {
			return nil, opError(fmt.Sprintf("Guardrail: %s (in %s after the rename); the rename was not applied", msg, rel)), false
		}
		if !s.wrote(rel) {
			newFiles++
		}
		if after != before {
			changes = append(changes, renamed{rel, before, after})
		}
	}
	slices.Sort(outside)
	slices.Sort(unread)
	switch {
	case len(outside) > 0:
		return nil, opError("the rename would change files outside the worktree (" + strings.Join(outside, ", ") + "): it was not applied; a name defined outside the project cannot be renamed here"), false
	case len(unread) > 0:
		return nil, opError("read these files with read_file before renaming (the rename changes them): " + strings.Join(unread, ", ")), false
	case r.maxFiles > 0 && s.filesWritten()+newFiles > r.maxFiles:
		return nil, opError(fmt.Sprintf("Guardrail: the rename changes %d files this session has not changed yet, over the limit of %d files per session; it was not applied", newFiles, r.maxFiles)), false
	case len(changes) == 0:
		return nil, opError("the rename changes nothing: " + "the new name is the old one"), false
	}
	slices.SortFunc(changes, func(a, b renamed) int { return strings.Compare(a.rel, b.rel) })
	return changes, Result{}, true
}

// writeAll writes every change, or, when one write fails, puts back the
// files already written and returns the error.
func (s *Session) writeAll(changes []renamed) error {
	for i, ch := range changes {
		if err := s.root.WriteFile(ch.rel, []byte(ch.after)); err != nil {
			for _, done := range changes[:i] {
				_ = s.root.WriteFile(done.rel, []byte(done.before))
			}
			return fmt.Errorf("writing %s: %w (the files already renamed were restored)", ch.rel, err)
		}
	}
	return nil
}

// settledDiagnostics tells the server the new contents of files and
// returns its errors and warnings for them (those that came in time): the
// rename's, and every write's when a server is running for the file.
func (s *Session) settledDiagnostics(ctx context.Context, c *langserver.Client, files []string) map[string][]langserver.Diagnostic {
	mark := c.DiagnosticsMark()
	if err := s.lspSync(ctx, c, files...); err != nil {
		return nil
	}
	if len(files) > 1 {
		// A request after the changes: the server has taken them all in
		// when it answers, and what it publishes after comes from the
		// whole change, not from a state with only some files changed. (A
		// single file's publication at its new version is never such.)
		last := files[len(files)-1]
		if err := c.Call(ctx, s.lspStarter(), "textDocument/documentSymbol", protocol.DocumentSymbolParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: protocolURI(s.root.Abs(last))}}, nil); err != nil {
			return nil
		}
		mark = c.DiagnosticsMark()
	}
	wctx, cancel := context.WithTimeout(ctx, renameDiagnosticsWait)
	defer cancel()
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i] = s.root.Abs(f)
	}
	out := map[string][]langserver.Diagnostic{}
	for path, ds := range c.Diagnostics(wctx, abs, mark) {
		var keep []langserver.Diagnostic
		for _, d := range ds {
			if d.Severity == "error" || d.Severity == "warning" {
				keep = append(keep, d)
			}
		}
		if rel, ok := s.worktreeRel(protocolURI(path)); ok && len(keep) > 0 {
			out[rel] = keep
		}
	}
	return out
}
