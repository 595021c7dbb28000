package langserver

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/uri"
)

// Diagnostic is one problem a server reports in a file.
type Diagnostic struct {
	Line     int    `json:"line"`   // 1-based
	Column   int    `json:"column"` // 1-based, in UTF-16 units as the server counts
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"`
}

// diagnosticsStore keeps the last diagnostics published per document, and
// wakes waiters on each publication.
type diagnosticsStore struct {
	mu      sync.Mutex
	byPath  map[string]published
	seq     uint64 // publications so far
	changed chan struct{}
}

type published struct {
	seq     uint64
	version int32
	hasVer  bool
	items   []Diagnostic
}

func (d *diagnosticsStore) publish(raw json.RawMessage) {
	var params struct {
		URI         uri.URI `json:"uri"`
		Version     *int32  `json:"version"`
		Diagnostics []struct {
			Range struct {
				Start struct {
					Line      int `json:"line"`
					Character int `json:"character"`
				} `json:"start"`
			} `json:"range"`
			Severity int    `json:"severity"`
			Message  string `json:"message"`
			Source   string `json:"source"`
		} `json:"diagnostics"`
	}
	if json.Unmarshal(raw, &params) != nil {
		return
	}
	pub := published{items: []Diagnostic{}}
	if params.Version != nil {
		pub.version, pub.hasVer = *params.Version, true
	}
	for _, x := range params.Diagnostics {
		pub.items = append(pub.items, Diagnostic{Line: x.Range.Start.Line + 1, Column: x.Range.Start.Character + 1,
			Severity: severityName(x.Severity), Message: x.Message, Source: x.Source})
	}
	d.mu.Lock()
	d.seq++
	pub.seq = d.seq
	if d.byPath == nil {
		d.byPath = map[string]published{}
	}
	d.byPath[params.URI.FsPath()] = pub
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
	d.mu.Unlock()
}

func severityName(s int) string {
	switch s {
	case 1:
		return "error"
	case 2:
		return "warning"
	case 4:
		return "hint"
	}
	return "info"
}

// DiagnosticsMark is the count of diagnostics publications so far: pass
// it to Diagnostics to wait for later ones.
func (c *Client) DiagnosticsMark() uint64 {
	c.mu.Lock()
	p := c.proc
	c.mu.Unlock()
	if p == nil {
		return 0
	}
	p.diags.mu.Lock()
	defer p.diags.mu.Unlock()
	return p.diags.seq
}

// Diagnostics waits, until ctx ends, for a publication after mark of
// each file's diagnostics (absolute paths) at the version Sync last sent,
// and returns the latest publication of every file that has one. A server
// publishes again only when a file's diagnostics changed, and a file may
// be diagnosed on an intermediate state of a multi-file change, so the
// caller gives the server a moment (ctx) to settle.
func (c *Client) Diagnostics(ctx context.Context, paths []string, mark uint64) map[string][]Diagnostic {
	c.mu.Lock()
	p := c.proc
	want := map[string]int32{}
	if p != nil {
		for _, path := range paths {
			if d, ok := p.docs[path]; ok {
				want[path] = d.version
			}
		}
	}
	c.mu.Unlock()
	out := map[string][]Diagnostic{}
	if p == nil {
		return out
	}
	latest := func() map[string][]Diagnostic {
		for _, path := range paths {
			if pub, ok := p.diags.byPath[path]; ok {
				out[path] = pub.items
			}
		}
		return out
	}
	for {
		p.diags.mu.Lock()
		for path, v := range want {
			if pub, ok := p.diags.byPath[path]; ok && pub.seq > mark && (!pub.hasVer || pub.version >= v) {
				delete(want, path)
			}
		}
		if len(want) == 0 {
			defer p.diags.mu.Unlock()
			return latest()
		}
		if p.diags.changed == nil {
			p.diags.changed = make(chan struct{})
		}
		wait := p.diags.changed
		p.diags.mu.Unlock()
		select {
		case <-wait:
		case <-p.exited:
			return out
		case <-ctx.Done():
			p.diags.mu.Lock()
			defer p.diags.mu.Unlock()
			return latest()
		}
	}
}
