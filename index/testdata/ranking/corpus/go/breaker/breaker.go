// Package breaker stops calling a failing dependency for a while.
package breaker

import (
	"errors"
	"sync"
	"time"
)

// ErrOpen is returned while the circuit is open.
var ErrOpen = errors.New("circuit open")

// Breaker opens after Threshold consecutive failures and lets one trial
// call through after Cooldown (half-open).
type Breaker struct {
	mu        sync.Mutex
	Threshold int
	Cooldown  time.Duration
	failures  int
	openedAt  time.Time
}

// Call runs fn unless the circuit is open.
func (b *Breaker) Call(fn func() error) error {
	b.mu.Lock()
	if b.failures >= b.Threshold && time.Since(b.openedAt) < b.Cooldown {
		b.mu.Unlock()
		return ErrOpen
	}
	b.mu.Unlock()
	err := fn()
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		b.failures++
		if b.failures >= b.Threshold {
			b.openedAt = time.Now()
		}
		return err
	}
	b.failures = 0
	return nil
}
