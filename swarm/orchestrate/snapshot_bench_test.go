package orchestrate

import (
	"context"
	"testing"

	"github.com/autarch-dev/autarch/editor"
)

// BenchmarkSnapshot: what the swarm view's refresh costs for a running
// swarm (shared context, queue) on the embedded NATS.
func BenchmarkSnapshot(b *testing.B) {
	w := newWorld(b, "")
	o := w.newOrchestrator(Config{Arbiter: func(string) Arbiter { return NewInbox() }})
	defer o.Close()
	ctx := context.Background()
	st := startSwarm(b, o, Options{Task: "x", Agents: []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}, Rounds: 1})
	b.ResetTimer()
	for b.Loop() {
		if _, err := o.Snapshot(ctx, st.ID); err != nil {
			b.Fatal(err)
		}
	}
}
