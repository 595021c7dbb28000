package swarm

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestOpenAgainUpdatesNothing: opening a swarm that exists (what every
// agent, the orchestrator and the arbiter do on one swarm) leaves its
// streams' configuration alone, where jetstream's CreateOrUpdate*
// rewrote it on every open, racing nats-server's consumer creation; a
// configuration that really differs is still updated.
func TestOpenAgainUpdatesNothing(t *testing.T) {
	ctx := context.Background()
	c, _ := open(t, t.TempDir(), Options{})
	var updates atomic.Int32
	sub, err := c.NATS().Subscribe("$JS.EVENT.ADVISORY.STREAM.UPDATED.>", func(*nats.Msg) { updates.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	for range 3 {
		if _, err := Open(ctx, c, "t", Options{}); err != nil {
			t.Fatal(err)
		}
	}
	// a stream whose description changed is updated, once
	cfg := jetstream.StreamConfig{Name: "ensure_probe", Subjects: []string{"ensure.probe"}, Storage: jetstream.FileStorage}
	if _, err := EnsureStream(ctx, c.JetStream(), cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Description = "changed"
	st, err := EnsureStream(ctx, c.JetStream(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.CachedInfo().Config.Description; got != "changed" {
		t.Fatalf("description = %q after EnsureStream with a new one", got)
	}
	if err := c.NATS().Flush(); err != nil {
		t.Fatal(err)
	}
	// the advisory of the one update arrives asynchronously: wait for it,
	// then make sure no other followed
	testkit.Poll(10*time.Second, 10*time.Millisecond, func() error {
		if updates.Load() < 1 {
			return errors.New("no update advisory yet")
		}
		return nil
	})
	c.NATS().Flush()
	if n := updates.Load(); n != 1 {
		t.Fatalf("%d stream updates, want 1 (the changed description only)", n)
	}
}
