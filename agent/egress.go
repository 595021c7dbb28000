package agent

import (
	"context"
	"hash/maphash"
	"sync"

	"github.com/autarch-dev/autarch/tools"
)

// FilterModel wraps m so that every request passes the egress gate as a
// last line before it is sent: each message's content (a JSON content
// inside its strings) and each tool call's arguments. Messages already
// filtered (same text, same set of secret values) are taken from the
// previous request's results, so a long conversation costs only its new
// messages. A model already filtered by e is returned as it is; a nil e
// filters nothing.
func FilterModel(m Model, e *tools.Egress) Model {
	if e == nil || m == nil {
		return m
	}
	if f, ok := m.(*filteredModel); ok {
		if f.egress == e {
			return m
		}
		m = f.inner
	}
	return &filteredModel{inner: m, egress: e, seed: maphash.MakeSeed()}
}

type filteredModel struct {
	inner  Model
	egress *tools.Egress
	seed   maphash.Seed

	mu      sync.Mutex
	version uint64
	done    map[uint64]string // hash of a text → its filtered form
}

// Complete filters req and sends it on.
func (f *filteredModel) Complete(ctx context.Context, req Request, onText func(string)) (Response, error) {
	req.Messages = f.filter(req.Messages)
	return f.inner.Complete(ctx, req, onText)
}

// maxFiltered bounds the texts remembered as filtered: past it, the
// memory starts again (the next request is filtered whole).
const maxFiltered = 8192

// filter returns the filtered copy of msgs (msgs itself is not changed).
// Texts are remembered across requests, so that the agent, its
// sub-agents (which share its model) and their growing conversations
// only filter what is new.
func (f *filteredModel) filter(msgs []Message) []Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v := f.egress.Version(); v != f.version || f.done == nil || len(f.done) > maxFiltered {
		f.version, f.done = v, map[uint64]string{}
	}
	clean := func(s string, json bool) string {
		if s == "" {
			return s
		}
		var h maphash.Hash
		h.SetSeed(f.seed)
		if json {
			h.WriteByte(1)
		} else {
			h.WriteByte(0)
		}
		h.WriteString(s)
		k := h.Sum64()
		if out, ok := f.done[k]; ok {
			return out
		}
		var out string
		if json {
			out = string(f.egress.Args([]byte(s)))
		} else {
			out = f.egress.Auto(s)
		}
		f.done[k] = out
		return out
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.Content = clean(m.Content, false)
		if len(m.ToolCalls) > 0 {
			calls := make([]ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Args = []byte(clean(string(c.Args), true))
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}
