package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/git"
)

// applyWorkflow brings a workflow's work into the user's folder, as the
// user asked: "merge" fast-forwards the current branch; "edit" sends the
// changes as one workspace edit the user can undo, leaving out files that
// changed locally since the workflow's base.
func (w *workbench) applyWorkflow(ctx context.Context, args []json.RawMessage) (any, error) {
	var p editor.ApplyWorkflowParams
	if err := arg(args, &p); err != nil {
		return nil, err
	}
	_, wf, err := w.find(ctx, p.WorkflowID)
	if err != nil {
		return nil, err
	}
	d, err := diffView(ctx, w.repo, wf.BaseCommit, wf.WorkflowBranch, wf.Name)
	if err != nil {
		return nil, err
	}
	switch p.Mode {
	case "merge":
		if _, err := w.repo.MergeIntoCurrent(ctx, wf.WorkflowBranch); err != nil {
			return editor.ApplyWorkflowResult{Files: []string{}, Message: fmt.Sprintf("%v — apply as an edit instead, or merge by hand", err)}, nil
		}
		w.reanchor(ctx, nil)
		return editor.ApplyWorkflowResult{Applied: true, Files: paths(d), Message: fmt.Sprintf("fast-forwarded to %s (%d files)", wf.WorkflowBranch, len(d.Files))}, nil
	case "edit":
		return w.applyAsEdit(ctx, d)
	}
	return nil, invalidParams("mode %q is not accepted: use merge or edit", p.Mode)
}

func paths(d editor.PulseDiff) []string {
	out := make([]string, len(d.Files))
	for i, f := range d.Files {
		out[i] = f.Path
	}
	return out
}

// workspaceEdit is LSP's WorkspaceEdit with documentChanges.
type workspaceEdit struct {
	DocumentChanges []any `json:"documentChanges"`
}

type textDocumentEdit struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version *int   `json:"version"`
	} `json:"textDocument"`
	Edits []textEdit `json:"edits"`
}

type resourceOp struct {
	Kind    string         `json:"kind"`
	URI     string         `json:"uri"`
	Options map[string]any `json:"options,omitempty"`
}

// applyAsEdit builds and sends the workspace edit of a diff.
func (w *workbench) applyAsEdit(ctx context.Context, d editor.PulseDiff) (any, error) {
	var edit workspaceEdit
	var applied, skipped []string
	for _, f := range d.Files {
		changes, ok, err := w.fileChanges(ctx, d.Base, d.Head, f)
		if err != nil {
			return nil, err
		}
		if !ok {
			skipped = append(skipped, f.Path)
			continue
		}
		edit.DocumentChanges = append(edit.DocumentChanges, changes...)
		applied = append(applied, f.Path)
	}
	res := editor.ApplyWorkflowResult{Files: applied}
	if applied == nil {
		res.Files = []string{}
	}
	if len(edit.DocumentChanges) > 0 {
		var out struct {
			Applied       bool   `json:"applied"`
			FailureReason string `json:"failureReason"`
		}
		if _, err := w.s.conn.Call(ctx, "workspace/applyEdit", map[string]any{"label": "Apply Autarch workflow", "edit": edit}, &out); err != nil {
			return nil, fmt.Errorf("workspace/applyEdit: %w", err)
		}
		res.Applied = out.Applied
		res.Message = fmt.Sprintf("applied %d file(s) as an edit you can undo", len(applied))
		if out.Applied {
			w.reanchor(ctx, nil)
		}
		if !out.Applied {
			res.Message = "the editor did not apply the edit: " + out.FailureReason
		}
	}
	if len(skipped) > 0 {
		res.Message = strings.TrimSpace(res.Message + fmt.Sprintf("; left out %s: changed locally since the workflow started", strings.Join(skipped, ", ")))
	}
	return res, nil
}

// fileChanges are the document changes that turn one file from base into
// head; ok is false when the user's copy differs from base (a conflict).
func (w *workbench) fileChanges(ctx context.Context, base, head string, f editor.PulseDiffFile) (changes []any, ok bool, err error) {
	oldPath := f.Path
	if f.OldPath != "" {
		oldPath = f.OldPath
	}
	baseText, baseOK, err := w.content(ctx, base, oldPath)
	if err != nil {
		return nil, false, err
	}
	local, localOK := w.localText(oldPath)
	if localOK != baseOK || local != baseText {
		return nil, false, nil
	}
	headText, headOK, err := w.content(ctx, head, f.Path)
	if err != nil {
		return nil, false, err
	}
	oldURI := pathURI(filepath.Join(w.repo.Top(), filepath.FromSlash(oldPath)))
	newURI := pathURI(filepath.Join(w.repo.Top(), filepath.FromSlash(f.Path)))
	if !headOK {
		return []any{resourceOp{Kind: "delete", URI: oldURI, Options: map[string]any{"ignoreIfNotExists": true}}}, true, nil
	}
	if oldURI != newURI && baseOK {
		changes = append(changes, map[string]any{"kind": "rename", "oldUri": oldURI, "newUri": newURI})
	}
	if !baseOK {
		changes = append(changes, resourceOp{Kind: "create", URI: newURI, Options: map[string]any{"ignoreIfExists": true}})
	}
	var te textDocumentEdit
	te.TextDocument.URI = newURI
	te.Edits = []textEdit{{Range: lspRange{End: endOf(baseText)}, NewText: headText}}
	return append(changes, te), true, nil
}

// content is a file at a commit; ok is false when the commit lacks it.
func (w *workbench) content(ctx context.Context, rev, path string) (string, bool, error) {
	b, err := w.repo.FileAt(ctx, rev, path)
	if errors.Is(err, git.ErrNoFile) {
		return "", false, nil
	}
	return string(b), err == nil, err
}

// localText is the user's copy: the open document, else the file on disk.
func (w *workbench) localText(path string) (string, bool) {
	abs := filepath.Join(w.repo.Top(), filepath.FromSlash(path))
	if t, _, ok := w.s.docs.get(pathURI(abs)); ok {
		return t, true
	}
	b, err := os.ReadFile(abs)
	return string(b), err == nil
}

// endOf is the position after the last character of text.
func endOf(text string) lspPos {
	lines := strings.Split(text, "\n")
	last := lines[len(lines)-1]
	return lspPos{Line: len(lines) - 1, Character: len(utf16.Encode([]rune(last)))}
}
