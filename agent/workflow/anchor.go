package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/autarch-dev/autarch/agent/run"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/editor"
)

// DiagnosticSource marks the diagnostics of review comments.
const DiagnosticSource = "autarch"

// ReviewData travels with a review diagnostic so that a code action can
// apply the comment's suggestion to the commented lines (1-based).
type ReviewData struct {
	CommentID  string `json:"commentId"`
	Suggestion string `json:"suggestion,omitempty"`
	StartLine  int    `json:"startLine"`
	EndLine    int    `json:"endLine"`
}

// severities map review severities to LSP DiagnosticSeverity.
var severities = map[string]protocol.DiagnosticSeverity{"High": protocol.DiagnosticSeverityError, "Medium": protocol.DiagnosticSeverityWarning, "Low": protocol.DiagnosticSeverityInformation}

// ReviewDiagnostics turns anchored review comments into diagnostics by
// URI. Review-level comments have no place in a file (the side panel shows
// them).
func ReviewDiagnostics(comments []editor.CommentView) map[uri.URI][]protocol.Diagnostic {
	out := map[uri.URI][]protocol.Diagnostic{}
	for _, c := range comments {
		if c.FilePath == "" || c.URI == "" {
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
		sev, ok := severities[c.Severity]
		if !ok {
			sev = protocol.DiagnosticSeverityInformation
		}
		data, err := json.Marshal(ReviewData{CommentID: c.ID, Suggestion: c.Suggestion, StartLine: start, EndLine: end})
		if err != nil {
			continue // cannot happen: plain strings and ints
		}
		d := protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: uint32(start - 1)}, End: protocol.Position{Line: uint32(end - 1), Character: 1 << 20}},
			Severity: sev, Source: protocol.NewOptional(DiagnosticSource),
			Message: protocol.String(fmt.Sprintf("[%s · %s · %s] %s", c.Severity, c.Category, origin, c.Description)),
			Data:    data,
		}
		if c.Category != "" {
			d.Code = protocol.String(c.Category)
		}
		u := uri.URI(c.URI)
		out[u] = append(out[u], d)
	}
	return out
}

// Anchor sets each comment's URI: the user's file when it holds the
// reviewed head's content, else the file at the head commit
// (autarch-git:/<path>?commit=<sha>, as the diff view shows it). document
// is the user's open copy of a file (absolute path), if any.
func (e *Engine) Anchor(ctx context.Context, v *editor.ReviewView, document func(path string) (string, bool)) {
	where := map[string]string{}
	for i, c := range v.Comments {
		if c.FilePath == "" {
			continue
		}
		u, ok := where[c.FilePath]
		if !ok {
			u = string(e.fileURI(c.FilePath))
			head, err := e.cfg.Repo.FileAt(ctx, v.Head, c.FilePath)
			if local, ok := e.localText(c.FilePath, document); err == nil && (!ok || local != string(head)) {
				u = "autarch-git:/" + strings.TrimPrefix(c.FilePath, "/") + "?commit=" + v.Head
			}
			where[c.FilePath] = u
		}
		v.Comments[i].URI = u
	}
}

// reanchorDelay lets the editor's notifications settle before a changed
// file's review comments move.
const reanchorDelay = 300 * time.Millisecond

// reviewDiagnostics is the review a session shows as diagnostics: the
// latest one, re-anchored when one of its files changes.
type reviewDiagnostics struct {
	s *Service

	mu        sync.Mutex
	published map[uri.URI]bool
	last      *editor.ReviewView
	timer     *time.Timer
	stopped   bool
}

func (r *reviewDiagnostics) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
}

// show publishes a workflow's latest review.
func (r *reviewDiagnostics) show(ctx context.Context, workflowID string) {
	if workflowID == "" {
		return
	}
	e, err := r.s.open(ctx)
	if err != nil {
		return
	}
	d, err := e.Detail(ctx, workflowID)
	if err != nil {
		r.s.cfg.Log.Debug("review not shown", "err", err)
		return
	}
	if d.Review != nil {
		r.publish(ctx, d.Review)
	}
}

// publish anchors a review's comments and publishes them as diagnostics,
// replacing those published before.
func (r *reviewDiagnostics) publish(ctx context.Context, v *editor.ReviewView) {
	e, err := r.s.open(ctx)
	if err != nil {
		return
	}
	e.Anchor(ctx, v, r.s.cfg.Document)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = v
	byURI := ReviewDiagnostics(v.Comments)
	for u := range r.published {
		if _, ok := byURI[u]; !ok {
			byURI[u] = []protocol.Diagnostic{}
		}
	}
	r.published = map[uri.URI]bool{}
	for u, ds := range byURI {
		if len(ds) > 0 {
			r.published[u] = true
		}
		if err := r.s.cfg.Editor.PublishDiagnostics(ctx, protocol.PublishDiagnosticsParams{URI: u, Diagnostics: ds}); err != nil {
			r.s.cfg.Log.Debug("diagnostics not delivered", "err", err)
		}
	}
}

// reanchor publishes the last review again when one of its files changed
// (paths relative to the repository; nil: any), telling the side panel so
// its threads move too.
func (r *reviewDiagnostics) reanchor(ctx context.Context, paths []string) {
	r.mu.Lock()
	v := r.last
	r.mu.Unlock()
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
	r.publish(ctx, &cp)
	run.Send(r.s.cfg.Events, editor.WorkflowEvent{Kind: editor.EventReviewAnchor, Text: cp.ID})
}

// reanchorSoon re-anchors the review shortly after a file changed.
func (r *reviewDiagnostics) reanchorSoon(path string) {
	repo := r.s.repo()
	if repo == nil {
		return
	}
	rel, err := filepath.Rel(repo.Top(), path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return
	}
	rel = filepath.ToSlash(rel)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil || r.stopped {
		return
	}
	if r.timer != nil {
		r.timer.Stop()
	}
	r.timer = time.AfterFunc(reanchorDelay, func() { r.reanchor(context.Background(), []string{rel}) })
}
