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
	o, err := New(Config{Repo: w.repo, Open: w.open, Arbiter: func(string) Arbiter { return NewInbox() }})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	ctx := context.Background()
	st, err := o.Start(ctx, Options{Task: "x", Agents: []editor.SwarmAgent{{Name: "explorer", Role: RoleExplorer}}, Rounds: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := o.Snapshot(ctx, st.ID); err != nil {
			b.Fatal(err)
		}
	}
}
