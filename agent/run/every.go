package run

import (
	"context"
	"time"
)

// Every calls fn every d until ctx ends or fn returns false.
func Every(ctx context.Context, d time.Duration, fn func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !fn() {
			return
		}
	}
}
