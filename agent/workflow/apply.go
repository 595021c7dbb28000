package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/agent/workflow/store"
	"github.com/autarch-dev/autarch/editor"
	"github.com/autarch-dev/autarch/workspace/git"
)

// ApplyMode is how a workflow's work reaches the user's folder.
type ApplyMode string

// The apply modes.
const (
	// ApplyMerge fast-forwards the user's current branch.
	ApplyMerge ApplyMode = "merge"
	// ApplyEdit sends the changes as one workspace edit the user can undo.
	ApplyEdit ApplyMode = "edit"
)

// Apply brings a workflow's work into the user's folder, as the user asked:
// ApplyMerge fast-forwards the current branch; ApplyEdit sends the changes
// as one workspace edit through the editor, leaving out files that changed
// locally since the workflow's base. document is the user's open copy of
// a file (absolute path), if any.
func (e *Engine) Apply(ctx context.Context, wf store.Workflow, mode ApplyMode, document func(path string) (string, bool)) (editor.ApplyWorkflowResult, error) {
	if mode != ApplyMerge && mode != ApplyEdit {
		return editor.ApplyWorkflowResult{}, invalid("mode %q is not accepted: use merge or edit", mode)
	}
	d, err := e.diff(ctx, wf.BaseCommit, wf.WorkflowBranch, wf.Name)
	if err != nil {
		return editor.ApplyWorkflowResult{}, err
	}
	if mode == ApplyMerge {
		if _, err := e.cfg.Repo.MergeIntoCurrent(ctx, wf.WorkflowBranch); err != nil {
			return editor.ApplyWorkflowResult{Files: []string{}, Message: fmt.Sprintf("%v — apply as an edit instead, or merge by hand", err)}, nil
		}
		files := make([]string, len(d.Files))
		for i, f := range d.Files {
			files[i] = f.Path
		}
		return editor.ApplyWorkflowResult{Applied: true, Files: files, Message: fmt.Sprintf("fast-forwarded to %s (%d files)", wf.WorkflowBranch, len(d.Files))}, nil
	}
	return e.applyAsEdit(ctx, d, document)
}

// applyAsEdit builds and sends the workspace edit of a diff.
func (e *Engine) applyAsEdit(ctx context.Context, d editor.PulseDiff, document func(string) (string, bool)) (editor.ApplyWorkflowResult, error) {
	var edit protocol.WorkspaceEdit
	applied, skipped := []string{}, []string{}
	for _, f := range d.Files {
		changes, ok, err := e.fileChanges(ctx, d.Base, d.Head, f, document)
		if err != nil {
			return editor.ApplyWorkflowResult{}, err
		}
		if !ok {
			skipped = append(skipped, f.Path)
			continue
		}
		edit.DocumentChanges = append(edit.DocumentChanges, changes...)
		applied = append(applied, f.Path)
	}
	res := editor.ApplyWorkflowResult{Files: applied}
	if len(edit.DocumentChanges) > 0 {
		ok, err := e.cfg.Editor.ApplyEdit(ctx, "Apply Autarch workflow", edit)
		if err != nil {
			return editor.ApplyWorkflowResult{}, err
		}
		res.Applied = ok
		res.Message = fmt.Sprintf("applied %d file(s) as an edit you can undo", len(applied))
		if !ok {
			res.Message = "the editor did not apply the edit"
		}
	}
	if len(skipped) > 0 {
		res.Message = strings.TrimSpace(res.Message + fmt.Sprintf("; left out %s: changed locally since the workflow started", strings.Join(skipped, ", ")))
	}
	return res, nil
}

// fileChanges are the document changes that turn one file from base into
// head; ok is false when the user's copy differs from base (a conflict).
func (e *Engine) fileChanges(ctx context.Context, base, head string, f editor.PulseDiffFile, document func(string) (string, bool)) (changes []protocol.DocumentChange, ok bool, err error) {
	oldPath := f.Path
	if f.OldPath != "" {
		oldPath = f.OldPath
	}
	baseText, baseOK, err := e.content(ctx, base, oldPath)
	if err != nil {
		return nil, false, err
	}
	local, localOK := e.localText(oldPath, document)
	if localOK != baseOK || local != baseText {
		return nil, false, nil
	}
	headText, headOK, err := e.content(ctx, head, f.Path)
	if err != nil {
		return nil, false, err
	}
	oldURI, newURI := e.fileURI(oldPath), e.fileURI(f.Path)
	if !headOK {
		return []protocol.DocumentChange{&protocol.DeleteFile{Kind: "delete", URI: oldURI, Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptr(true)}}}, true, nil
	}
	if oldURI != newURI && baseOK {
		changes = append(changes, &protocol.RenameFile{Kind: "rename", OldURI: oldURI, NewURI: newURI})
	}
	if !baseOK {
		changes = append(changes, &protocol.CreateFile{Kind: "create", URI: newURI, Options: &protocol.CreateFileOptions{IgnoreIfExists: ptr(true)}})
	}
	te := &protocol.TextDocumentEdit{Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{Range: protocol.Range{End: endOf(baseText)}, NewText: headText}}}
	te.TextDocument.URI = newURI
	return append(changes, te), true, nil
}

func ptr[T any](v T) *T { return &v }

// fileURI is the URI of a repository path in the user's folder.
func (e *Engine) fileURI(path string) uri.URI {
	return uri.File(filepath.Join(e.cfg.Repo.Top(), filepath.FromSlash(path)))
}

// content is a file at a commit; ok is false when the commit lacks it.
func (e *Engine) content(ctx context.Context, rev, path string) (string, bool, error) {
	b, err := e.cfg.Repo.FileAt(ctx, rev, path)
	if errors.Is(err, git.ErrNoFile) {
		return "", false, nil
	}
	return string(b), err == nil, err
}

// localText is the user's copy of a repository path: the open document,
// else the file on disk.
func (e *Engine) localText(path string, document func(string) (string, bool)) (string, bool) {
	abs := filepath.Join(e.cfg.Repo.Top(), filepath.FromSlash(path))
	if t, ok := document(abs); ok {
		return t, true
	}
	b, err := os.ReadFile(abs)
	return string(b), err == nil
}

// endOf is the position after the last character of text (UTF-16 units).
func endOf(text string) protocol.Position {
	lines := strings.Split(text, "\n")
	last := lines[len(lines)-1]
	return protocol.Position{Line: uint32(len(lines) - 1), Character: uint32(len(utf16.Encode([]rune(last))))}
}

// Diff is the diff of a workflow (pulseID "") or of one of its pulses.
func (e *Engine) Diff(ctx context.Context, wf store.Workflow, pulseID string) (editor.PulseDiff, error) {
	base, head, title := wf.BaseCommit, wf.WorkflowBranch, "workflow "+wf.Name
	if pulseID != "" {
		pulse, err := e.pulseByID(ctx, wf.ID, pulseID)
		if err != nil {
			return editor.PulseDiff{}, invalid("%w", err)
		}
		if pulse.CheckpointCommit == "" {
			return editor.PulseDiff{}, invalid("pulse %s has no commit yet (it is %s)", pulseID, pulse.Status)
		}
		base, head, title = pulse.CheckpointCommit+"^", pulse.CheckpointCommit, fmt.Sprintf("pulse %s: %s", pulseID, pulse.Title)
	}
	return e.diff(ctx, base, head, title)
}

// pulseByID is the workflow's pulse with that planned id (the latest
// plan's wins).
func (e *Engine) pulseByID(ctx context.Context, workflowID, plannedID string) (store.Pulse, error) {
	pulses, err := e.cfg.Store.WorkflowPulses(ctx, workflowID)
	if err != nil {
		return store.Pulse{}, err
	}
	var found *store.Pulse
	for i := range pulses {
		if pulses[i].PlannedID == plannedID {
			found = &pulses[i]
		}
	}
	if found == nil {
		return store.Pulse{}, fmt.Errorf("the workflow has no pulse %q", plannedID)
	}
	return *found, nil
}

// diff resolves base and head and lists the files between them.
func (e *Engine) diff(ctx context.Context, base, head, title string) (editor.PulseDiff, error) {
	repo := e.cfg.Repo
	b, err := repo.ResolveCommit(ctx, base)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	h, err := repo.ResolveCommit(ctx, head)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	d, err := repo.Diff(ctx, b, h)
	if err != nil {
		return editor.PulseDiff{}, err
	}
	out := editor.PulseDiff{Base: b, Head: h, Title: title, Files: []editor.PulseDiffFile{}}
	for _, f := range d.Files {
		out.Files = append(out.Files, editor.PulseDiffFile{Path: f.Path, OldPath: f.OldPath, Status: string(f.Status), Additions: f.Additions, Deletions: f.Deletions})
	}
	return out, nil
}
