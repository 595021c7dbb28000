package server

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/autarch-dev/autarch/editor"
)

// LSP shapes of review diagnostics and their quick fixes.
type (
	lspPos struct {
		Line      int `json:"line"`
		Character int `json:"character"`
	}
	lspRange struct {
		Start lspPos `json:"start"`
		End   lspPos `json:"end"`
	}
	reviewDiagnostic struct {
		Range    lspRange   `json:"range"`
		Severity int        `json:"severity"`
		Source   string     `json:"source"`
		Code     string     `json:"code,omitempty"`
		Message  string     `json:"message"`
		Data     reviewData `json:"data"`
	}
	// reviewData travels with a diagnostic so a code action can apply the
	// comment's suggestion.
	reviewData struct {
		CommentID  string `json:"commentId"`
		Suggestion string `json:"suggestion,omitempty"`
		StartLine  int    `json:"startLine"`
		EndLine    int    `json:"endLine"`
	}
	textEdit struct {
		Range   lspRange `json:"range"`
		NewText string   `json:"newText"`
	}
	codeAction struct {
		Title       string             `json:"title"`
		Kind        string             `json:"kind"`
		Diagnostics []reviewDiagnostic `json:"diagnostics"`
		IsPreferred bool               `json:"isPreferred"`
		Edit        struct {
			Changes map[string][]textEdit `json:"changes"`
		} `json:"edit"`
	}
)

// diagnosticSource marks the diagnostics of review comments.
const diagnosticSource = "autarch"

// severities map review severities to LSP DiagnosticSeverity.
var severities = map[string]int{"High": 1, "Medium": 2, "Low": 3}

// reviewDiagnostics turns review comments into diagnostics by file URI.
// Line and file comments anchor to the files of root; review-level
// comments have no place in a file (the side panel shows them).
func reviewDiagnostics(root string, comments []editor.CommentView) map[string][]reviewDiagnostic {
	out := map[string][]reviewDiagnostic{}
	for _, c := range comments {
		if c.FilePath == "" {
			continue
		}
		start, end := max(c.StartLine, 1), max(c.EndLine, c.StartLine, 1)
		origin := "new"
		if c.PreExisting {
			origin = "pre-existing"
		}
		if c.Type == "file" {
			origin = "file"
		}
		sev := severities[c.Severity]
		if sev == 0 {
			sev = 3
		}
		uri := c.URI
		if uri == "" {
			uri = pathURI(filepath.Join(root, filepath.FromSlash(c.FilePath)))
		}
		out[uri] = append(out[uri], reviewDiagnostic{
			Range:    lspRange{Start: lspPos{Line: start - 1}, End: lspPos{Line: end - 1, Character: 1 << 20}},
			Severity: sev, Source: diagnosticSource, Code: c.Category,
			Message: fmt.Sprintf("[%s · %s · %s] %s", c.Severity, c.Category, origin, c.Description),
			Data:    reviewData{CommentID: c.ID, Suggestion: c.Suggestion, StartLine: start, EndLine: end},
		})
	}
	return out
}

// publishReview shows a workflow's latest review as diagnostics, replacing
// the review diagnostics published before.
func (w *workbench) publishReview(ctx context.Context, workflowID string) {
	e, err := w.open(ctx)
	if err != nil || workflowID == "" {
		return
	}
	d, err := e.Detail(ctx, workflowID)
	if err != nil || d.Review == nil {
		return
	}
	w.publishComments(ctx, d.Review)
}

// anchor sets each comment's URI: the user's file when it holds the
// reviewed head's content, else the file at the head commit.
func (w *workbench) anchor(ctx context.Context, v *editor.ReviewView) {
	w.mu.Lock()
	repo := w.repo
	w.mu.Unlock()
	if repo == nil {
		return
	}
	where := map[string]string{}
	for i, c := range v.Comments {
		if c.FilePath == "" {
			continue
		}
		uri, ok := where[c.FilePath]
		if !ok {
			uri = pathURI(filepath.Join(repo.Top(), filepath.FromSlash(c.FilePath)))
			head, err := repo.FileAt(ctx, v.Head, c.FilePath)
			if local, ok := w.localText(c.FilePath); err == nil && (!ok || local != string(head)) {
				uri = gitURI(c.FilePath, v.Head)
			}
			where[c.FilePath] = uri
		}
		v.Comments[i].URI = uri
	}
}

// gitURI names a file at a commit the way the extension's diff view does.
func gitURI(path, commit string) string {
	return "autarch-git:/" + strings.TrimPrefix(path, "/") + "?commit=" + commit
}

// publishComments anchors a review's comments and publishes them as
// diagnostics, replacing those published before; the review is remembered
// so that applying the workflow or editing a commented file re-anchors it.
func (w *workbench) publishComments(ctx context.Context, v *editor.ReviewView) {
	w.anchor(ctx, v)
	w.diagMu.Lock()
	defer w.diagMu.Unlock()
	w.lastReview = v
	byURI := reviewDiagnostics("", v.Comments)
	for uri := range w.diags {
		if _, ok := byURI[uri]; !ok {
			byURI[uri] = []reviewDiagnostic{}
		}
	}
	w.diags = map[string]bool{}
	for uri, ds := range byURI {
		if len(ds) > 0 {
			w.diags[uri] = true
		}
		params := map[string]any{"uri": uri, "diagnostics": ds}
		if err := w.s.conn.Notify(ctx, "textDocument/publishDiagnostics", params); err != nil {
			w.s.log.Debug("diagnostics not delivered", "err", err)
		}
	}
}

// reanchor publishes the last review again when one of its files changed
// (applied, edited), telling the side panel so its threads move too.
func (w *workbench) reanchor(ctx context.Context, paths []string) {
	w.diagMu.Lock()
	v := w.lastReview
	w.diagMu.Unlock()
	if v == nil {
		return
	}
	hit := paths == nil
	for _, c := range v.Comments {
		for _, p := range paths {
			hit = hit || c.FilePath == p
		}
	}
	if !hit {
		return
	}
	cp := *v
	cp.Comments = append([]editor.CommentView(nil), v.Comments...)
	w.publishComments(ctx, &cp)
	w.s.Client().Notify(ctx, editor.MethodWorkflowEvent, editor.WorkflowEvent{Kind: "review_anchor", Text: cp.ID})
}

// codeActions offers the suggestion of each review diagnostic in the
// request as a quick fix that replaces the commented lines.
func (s *Server) codeActions(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
		Context struct {
			Diagnostics []reviewDiagnostic `json:"diagnostics"`
		} `json:"context"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	actions := []codeAction{}
	for _, d := range p.Context.Diagnostics {
		if d.Source != diagnosticSource || d.Data.Suggestion == "" || d.Data.StartLine < 1 {
			continue
		}
		text := d.Data.Suggestion
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		a := codeAction{Title: "Apply Autarch's suggestion: " + firstLine(d.Message), Kind: "quickfix", Diagnostics: []reviewDiagnostic{d}, IsPreferred: true}
		a.Edit.Changes = map[string][]textEdit{p.TextDocument.URI: {{
			Range:   lspRange{Start: lspPos{Line: d.Data.StartLine - 1}, End: lspPos{Line: d.Data.EndLine}},
			NewText: text,
		}}}
		actions = append(actions, a)
	}
	return actions, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return s
}

// reanchorSoon re-anchors the review shortly after a file changed, once the
// editor's notifications have settled.
func (w *workbench) reanchorSoon(uri string) {
	p, ok := uriPath(uri)
	if !ok {
		return
	}
	w.mu.Lock()
	repo := w.repo
	w.mu.Unlock()
	if repo == nil {
		return
	}
	rel, err := filepath.Rel(repo.Top(), p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	rel = filepath.ToSlash(rel)
	w.diagMu.Lock()
	defer w.diagMu.Unlock()
	if w.lastReview == nil {
		return
	}
	if w.anchorTimer != nil {
		w.anchorTimer.Stop()
	}
	w.anchorTimer = time.AfterFunc(300*time.Millisecond, func() { w.reanchor(context.WithoutCancel(w.lifetime()), []string{rel}) })
}
