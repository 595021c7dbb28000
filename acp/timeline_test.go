package acp

import (
	"slices"
	"testing"
	"time"
)

// TestTimelinePlaysInTimeOrder: a replay's messages and tool calls,
// added kind by kind, are sent in the order they happened; what happened
// at the same moment keeps the order it was added in.
func TestTimelinePlaysInTimeOrder(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 11, 29, 18, 0, s, 0, time.UTC) }
	var sent []string
	var tl timeline
	for _, it := range []struct {
		at   time.Time
		name string
	}{
		{at(1), "message 1"}, {at(4), "message 4"}, {at(2), "message 2 (first at 2)"},
		{at(3), "call 3"}, {at(2), "call 2 (second at 2)"}, {at(0), "call 0"},
	} {
		tl.add(it.at, func() { sent = append(sent, it.name) })
	}
	tl.play()
	want := []string{"call 0", "message 1", "message 2 (first at 2)", "call 2 (second at 2)", "call 3", "message 4"}
	if !slices.Equal(sent, want) {
		t.Errorf("sent %q, want %q", sent, want)
	}
}
