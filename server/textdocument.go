package server

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/autarch-dev/autarch/agent/workflow"
)

// documents holds the text of the documents the client has open (full sync).
type documents struct {
	mu      sync.Mutex
	text    map[string]string
	version map[string]int
	// applied records every (uri, version) applied, in order; tests use it
	// to check notifications are handled in arrival order.
	applied []docVersion
}

type docVersion struct {
	uri     string
	version int
}

func newDocuments() *documents {
	return &documents{text: map[string]string{}, version: map[string]int{}}
}

func (d *documents) set(uri string, version int, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.text[uri] = text
	d.version[uri] = version
	d.applied = append(d.applied, docVersion{uri, version})
	if len(d.applied) > 10000 {
		d.applied = d.applied[len(d.applied)-1000:]
	}
}

func (d *documents) remove(uri string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.text, uri)
	delete(d.version, uri)
}

// get returns an open document's text.
func (d *documents) get(uri string) (string, int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.text[uri]
	return t, d.version[uri], ok
}

// byPath is the text of the open document at an absolute path.
func (d *documents) byPath(path string) (string, bool) {
	t, _, ok := d.get(pathURI(path))
	return t, ok
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

// textDocumentParams are the params of a notification that names a
// document only (didSave, didClose).
type textDocumentParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

// edited tells the domain a document's text changed.
func (s *Server) edited(u, text string, opened bool) {
	path, ok := uriPath(u)
	if !ok {
		return
	}
	if d, err := s.domain(); err == nil {
		d.Edited(path, text, opened)
	}
}

// didSave re-indexes the saved file from disk.
func (s *Server) didSave(ctx context.Context, raw json.RawMessage) (any, error) {
	var p textDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if path, ok := uriPath(p.TextDocument.URI); ok {
		if d, err := s.domain(); err == nil {
			d.FilesChanged(path)
		}
	}
	return nil, nil
}

func (s *Server) didOpen(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.docs.set(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.edited(p.TextDocument.URI, p.TextDocument.Text, true)
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		TextDocument struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		} `json:"textDocument"`
		ContentChanges []struct {
			Text string `json:"text"`
		} `json:"contentChanges"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	if n := len(p.ContentChanges); n > 0 {
		// Full sync: the last change holds the whole text.
		s.docs.set(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges[n-1].Text)
		s.edited(p.TextDocument.URI, p.ContentChanges[n-1].Text, false)
	}
	return nil, nil
}

func (s *Server) didClose(ctx context.Context, raw json.RawMessage) (any, error) {
	var p textDocumentParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	s.docs.remove(p.TextDocument.URI)
	return nil, nil
}

// codeAction offers the suggestion of each review diagnostic in the
// request as a quick fix that replaces the commented lines.
func (s *Server) codeAction(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.CodeActionParams
	if err := protocol.Unmarshal(raw, &p); err != nil {
		return nil, invalidParams("invalid params: %v", err)
	}
	actions := []protocol.CodeAction{}
	for _, d := range p.Context.Diagnostics {
		if src, ok := d.Source.Get(); !ok || src != workflow.DiagnosticSource {
			continue
		}
		var data workflow.ReviewData
		if len(d.Data) == 0 || json.Unmarshal(d.Data, &data) != nil || data.Suggestion == "" || data.StartLine < 1 {
			continue
		}
		text := data.Suggestion
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		msg, _ := d.Message.(protocol.String)
		kind := protocol.CodeActionKindQuickFix
		preferred := true
		actions = append(actions, protocol.CodeAction{
			Title: "Apply Autarch's suggestion: " + firstLine(string(msg)), Kind: &kind, Diagnostics: []protocol.Diagnostic{d}, IsPreferred: &preferred,
			Edit: &protocol.WorkspaceEdit{Changes: map[uri.URI][]protocol.TextEdit{p.TextDocument.URI: {{
				Range:   protocol.Range{Start: protocol.Position{Line: uint32(data.StartLine - 1)}, End: protocol.Position{Line: uint32(data.EndLine)}},
				NewText: text,
			}}}},
		})
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
