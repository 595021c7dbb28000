package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
)

// progressTable tracks the server's workDoneProgress tokens so that
// window/workDoneProgress/cancel reaches the right work.
type progressTable struct {
	next   atomic.Int64
	mu     sync.Mutex
	active map[string]chan struct{}
}

func newProgressTable() *progressTable {
	return &progressTable{active: map[string]chan struct{}{}}
}

// add allocates a token and its cancel channel.
func (t *progressTable) add() (string, chan struct{}) {
	token := fmt.Sprintf("autarch-%d", t.next.Add(1))
	ch := make(chan struct{})
	t.mu.Lock()
	t.active[token] = ch
	t.mu.Unlock()
	return token, ch
}

// cancel closes the token's channel, once.
func (t *progressTable) cancel(token string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	ch, ok := t.active[token]
	if ok {
		close(ch)
		delete(t.active, token)
	}
	return ok
}

// done forgets a finished token (its work no longer listens for a cancel).
func (t *progressTable) done(token string) {
	t.mu.Lock()
	delete(t.active, token)
	t.mu.Unlock()
}

func (s *Server) cancelProgress(ctx context.Context, raw json.RawMessage) (any, error) {
	var p struct {
		Token json.RawMessage `json:"token"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	var token string
	if json.Unmarshal(p.Token, &token) != nil {
		token = string(p.Token) // numeric tokens are not ours
	}
	if !s.progress.cancel(token) {
		s.log.Debug("cancel for unknown progress token", "token", token)
	}
	return nil, nil
}
