package swarm

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestCloseLeavesNothing: closing the hosting connection stops the
// embedded server with all its goroutines and releases the host lock.
func TestCloseLeavesNothing(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	ctx := context.Background()
	c, err := Connect(ctx, ConnOptions{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, c, "t", Options{}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	c2, err := Connect(ctx, ConnOptions{StateDir: dir}) // the lock is free again
	if err != nil {
		t.Fatal(err)
	}
	if !c2.Hosting() {
		t.Error("the next process does not host after the host closed")
	}
	c2.Close()
}
