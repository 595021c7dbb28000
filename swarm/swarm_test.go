package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock               { return &clock{t: time.Now()} }

// open starts (or joins) the embedded NATS of stateDir and opens swarm "t".
func open(t testing.TB, stateDir string, opts Options) (*Conn, *Swarm) {
	t.Helper()
	ctx := context.Background()
	c, err := Connect(ctx, ConnOptions{StateDir: stateDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := Open(ctx, c, "t", opts)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}

func refusal(t *testing.T, err error, want string) *Refusal {
	t.Helper()
	var r *Refusal
	if !errors.As(err, &r) || r.Err != want {
		t.Fatalf("err = %v, want refusal %s", err, want)
	}
	return r
}

func TestContextModes(t *testing.T) {
	ctx := context.Background()
	_, s := open(t, t.TempDir(), Options{})
	r, err := s.Put(ctx, "Gemini.list", json.RawMessage(`{"ok":true}`), "", 0)
	if err != nil || !r.OK || r.Version == 0 {
		t.Fatalf("set: %+v %v", r, err)
	}
	v1 := r.Version
	if r, err = s.Put(ctx, "Gemini.list", json.RawMessage(`1`), ModeIfAbsent, 0); err != nil || r.OK || r.Error != VersionMismatch || r.Version != v1 {
		t.Fatalf("if_absent on an existing key: %+v %v", r, err)
	}
	if r, err = s.Put(ctx, "Gemini.list", json.RawMessage(`2`), ModeIfVersion, v1); err != nil || !r.OK || r.Version <= v1 {
		t.Fatalf("if_version current: %+v %v", r, err)
	}
	v2 := r.Version
	if r, err = s.Put(ctx, "Gemini.list", json.RawMessage(`3`), ModeIfVersion, v1); err != nil || r.OK || r.Version != v2 {
		t.Fatalf("if_version stale: %+v %v", r, err)
	}
	if r, err = s.Put(ctx, "nope", json.RawMessage(`3`), ModeIfVersion, 7); err != nil || r.OK || r.Version != 0 {
		t.Fatalf("if_version of a missing key: %+v %v", r, err)
	}
	e, err := s.Get(ctx, "Gemini.list")
	if err != nil || string(e.Value) != "2" || e.Version != v2 {
		t.Fatalf("get: %+v %v", e, err)
	}
	if e, _ = s.Get(ctx, "missing"); string(e.Value) != "null" || e.Version != 0 {
		t.Fatalf("get missing: %+v", e)
	}
	s.Put(ctx, "Claude.x", json.RawMessage(`1`), "", 0)
	keys, err := s.Keys(ctx, "Gemini.")
	if err != nil || len(keys) != 1 || keys[0] != "Gemini.list" {
		t.Fatalf("keys: %v %v", keys, err)
	}
	for _, bad := range []string{"", "a b", ".a", "a.", "a..b", "a*", "a>b", "ключ"} {
		_, err := s.Put(ctx, bad, json.RawMessage(`1`), "", 0)
		refusal(t, err, ErrInvalid)
	}
	_, err = s.Put(ctx, "k", json.RawMessage(`"`+strings.Repeat("x", MaxValue)+`"`), "", 0)
	refusal(t, err, ErrInvalid)
	if st, err := s.Status(ctx); err != nil || st.Length != 0 || st.Front != nil || st.Phase != 0 {
		t.Fatalf("empty status: %+v %v", st, err)
	}
	if it, err := s.Next(ctx, "A", 0); it != nil || err != nil {
		t.Fatalf("next of an empty queue: %+v %v", it, err)
	}
	if p, err := s.Pending(ctx); p != nil || err != nil {
		t.Fatalf("no proposals: %+v %v", p, err)
	}
	_, err = s.Put(ctx, "k", json.RawMessage(`{`), "", 0)
	refusal(t, err, ErrInvalid)
	_, err = s.Put(ctx, "k", json.RawMessage(`1`), "sometimes", 0)
	refusal(t, err, ErrInvalid)
}

func TestQueueLeases(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	_, s := open(t, t.TempDir(), Options{Now: clk.now})
	a, err := s.Enqueue(ctx, "scan", json.RawMessage(`{"dir":"docs"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Enqueue(ctx, "scan", json.RawMessage(`{"dir":"src"}`))
	it, err := s.Next(ctx, "A", time.Second)
	if err != nil || it == nil || it.ID != a.ID || it.ClaimedBy != "A" {
		t.Fatalf("next: %+v %v", it, err)
	}
	st, err := s.Status(ctx)
	if err != nil || st.Counts != (Counts{Queued: 1, Claimed: 1}) || st.Length != 2 || st.Front == nil || st.Front.ID != b.ID {
		t.Fatalf("status: %+v %v", st, err)
	}
	// the lease ends: B gets a, A's complete fails
	clk.add(2 * time.Second)
	var got *Item
	_ = testkit.Poll(5*time.Second, 50*time.Millisecond, func() error {
		if got, err = s.Next(ctx, "B", time.Minute); err != nil || got != nil && got.ID == a.ID {
			return nil
		}
		return errors.New("a not redelivered")
	})
	if err != nil || got == nil || got.ID != a.ID {
		t.Fatalf("redelivery: %+v %v", got, err)
	}
	r := refusal(t, s.Complete(ctx, "A", a.ID, nil), ErrNotHolder)
	if r.Code != 409 || r.ClaimedBy != "B" {
		t.Fatalf("late complete: %+v", r)
	}
	if err := s.Complete(ctx, "B", a.ID, json.RawMessage(`{"ok":true}`)); err != nil {
		t.Fatal(err)
	}
	refusal(t, s.Complete(ctx, "B", a.ID, nil), ErrAlreadyDone)
	st, _ = s.Status(ctx)
	if st.Counts.Done != 1 {
		t.Fatalf("status after complete: %+v", st)
	}
}
