package server

import (
	"encoding/json"
	"sync"

	"github.com/autarch-dev/autarch/editor"
)

// editorRecord is what the editor at the other end of the connection was
// asked to approve and to apply.
type editorRecord struct {
	mu        sync.Mutex
	approvals []editor.Approval
	edits     []json.RawMessage
}

// recordEditor makes h's client answer every approval with verdict and
// apply every workspace edit, recording both.
func (h *harness) recordEditor(verdict func(editor.Approval) editor.Verdict) *editorRecord {
	rec := &editorRecord{}
	h.onCall = func(method string, params json.RawMessage) (any, error) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		switch method {
		case editor.MethodApprove:
			var a editor.Approval
			json.Unmarshal(params, &a)
			rec.approvals = append(rec.approvals, a)
			return verdict(a), nil
		case "workspace/applyEdit":
			rec.edits = append(rec.edits, params)
			return map[string]any{"applied": true}, nil
		}
		return nil, nil
	}
	return rec
}
