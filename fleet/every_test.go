package fleet

import (
	"context"
	"testing"
	"time"
)

// Every calls fn until it returns false, and stops when ctx ends.
func TestEvery(t *testing.T) {
	calls := 0
	Every(context.Background(), time.Millisecond, func() bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Errorf("fn called %d times, want 3 (until it returned false)", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	Every(ctx, time.Hour, func() bool { calls++; return true }) // returns at once
	if calls != 0 {
		t.Errorf("fn called %d times after ctx ended, want none", calls)
	}
}
