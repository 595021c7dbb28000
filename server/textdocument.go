package server

import (
	"context"
	"encoding/json"
	"sync"
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

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
	Text    string `json:"text"`
}

func (s *Server) registerTextDocument() {
	s.notifs["textDocument/didOpen"] = s.didOpen
	s.notifs["textDocument/didChange"] = s.didChange
	s.notifs["textDocument/didClose"] = s.didClose
	s.notifs["textDocument/didSave"] = s.didSave
	s.notifs["workspace/didChangeWatchedFiles"] = s.didChangeWatchedFiles
}

// didSave re-indexes the saved file from disk.
func (s *Server) didSave(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if err := decode(raw, &p); err != nil {
		return err
	}
	s.wb.filesChanged(p.TextDocument.URI)
	s.wb.reanchorSoon(p.TextDocument.URI)
	return nil
}

// didChangeWatchedFiles re-indexes files created, changed or deleted
// outside the editor's buffers.
func (s *Server) didChangeWatchedFiles(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		Changes []struct {
			URI string `json:"uri"`
		} `json:"changes"`
	}
	if err := decode(raw, &p); err != nil {
		return err
	}
	uris := make([]string, len(p.Changes))
	for i, c := range p.Changes {
		uris[i] = c.URI
	}
	s.wb.filesChanged(uris...)
	return nil
}

func (s *Server) didOpen(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if err := decode(raw, &p); err != nil {
		return err
	}
	s.docs.set(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
	s.wb.reanchorSoon(p.TextDocument.URI)
	return nil
}

func (s *Server) didChange(ctx context.Context, raw json.RawMessage) error {
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
		return err
	}
	if n := len(p.ContentChanges); n > 0 {
		// Full sync: the last change holds the whole text.
		s.docs.set(p.TextDocument.URI, p.TextDocument.Version, p.ContentChanges[n-1].Text)
		s.wb.bufferChanged(p.TextDocument.URI, p.ContentChanges[n-1].Text)
		s.wb.reanchorSoon(p.TextDocument.URI)
	}
	return nil
}

func (s *Server) didClose(ctx context.Context, raw json.RawMessage) error {
	var p struct {
		TextDocument struct {
			URI string `json:"uri"`
		} `json:"textDocument"`
	}
	if err := decode(raw, &p); err != nil {
		return err
	}
	s.docs.remove(p.TextDocument.URI)
	return nil
}
