package swarm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// TestHelperNATS is a separately started nats-server process (the
// stand-in for a cluster): JetStream on SWARM_STORE, 127.0.0.1:SWARM_PORT.
func TestHelperNATS(t *testing.T) {
	if os.Getenv("SWARM_NATS") == "" {
		t.Skip("run by TestExternalNATS")
	}
	var port int
	fmt.Sscan(os.Getenv("SWARM_PORT"), &port)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: os.Getenv("SWARM_STORE"), NoSigs: true, NoLog: true})
	if err != nil {
		fmt.Println(`{"fatal": "` + err.Error() + `"}`)
		os.Exit(3)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		os.Exit(3)
	}
	fmt.Printf("{\"url\": %q}\n", srv.ClientURL())
	srv.WaitForShutdown()
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestExternalNATS runs the engine against a NATS in another process,
// reached by URL (AUTARCH_NATS_URL's path): two agents on two
// connections, plus a helper process for the CAS race.
func TestExternalNATS(t *testing.T) {
	port := freePort(t)
	_, sc := helper(t, map[string]string{"SWARM_NATS": "1", "SWARM_PORT": fmt.Sprint(port), "SWARM_STORE": t.TempDir()})
	var started map[string]any
	for sc.Scan() {
		if json.Unmarshal(sc.Bytes(), &started) == nil {
			break
		}
	}
	url, _ := started["url"].(string)
	if url != fmt.Sprintf("nats://127.0.0.1:%d", port) {
		t.Fatalf("server: %v", started)
	}
	ctx := context.Background()
	clk := newClock()
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clk.now() }
	conn := func() *Swarm {
		c, err := Connect(ctx, ConnOptions{URL: url})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if c.Hosting() {
			t.Fatal("hosting with an external URL")
		}
		s, err := Open(ctx, c, "t", Options{Now: now, Limits: Limits{Default: Limit{Calls: 2, Per: time.Minute}}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := conn(), conn()

	// CAS: B's write on the version A read loses, with the current version
	r, _ := a.Put(ctx, "plan", json.RawMessage(`"v1"`), ModeIfAbsent, 0)
	if r2, _ := b.Put(ctx, "plan", json.RawMessage(`"b"`), ModeIfAbsent, 0); r2.OK || r2.Version != r.Version {
		t.Fatalf("if_absent race: %+v", r2)
	}
	ra, _ := a.Put(ctx, "plan", json.RawMessage(`"a2"`), ModeIfVersion, r.Version)
	rb, _ := b.Put(ctx, "plan", json.RawMessage(`"b2"`), ModeIfVersion, r.Version)
	if !ra.OK || rb.OK || rb.Error != VersionMismatch || rb.Version != ra.Version {
		t.Fatalf("if_version race: a %+v b %+v", ra, rb)
	}
	out := run(t, map[string]string{"SWARM_HELPER": "increment", "SWARM_URL": url, "SWARM_ARG": "20"})
	if e, _ := a.Get(ctx, "counter"); string(e.Value) != "20" {
		t.Fatalf("counter from another process: %s (%v)", e.Value, out)
	}

	// queue: claim of an id, FIFO next, extend, expiry and redelivery
	x, _ := a.Enqueue(ctx, "x", nil)
	y, _ := a.Enqueue(ctx, "y", nil)
	z, _ := a.Enqueue(ctx, "z", nil)
	if _, err := b.Claim(ctx, "B", y.ID, time.Minute); err != nil {
		t.Fatal(err)
	}
	itA, _ := a.Next(ctx, "A", time.Second)
	itB, _ := b.Next(ctx, "B", time.Minute)
	if itA == nil || itA.ID != x.ID || itB == nil || itB.ID != z.ID {
		t.Fatalf("next after claim: A %+v B %+v", itA, itB)
	}
	if st, _ := a.Status(ctx); st.Counts != (Counts{Claimed: 3}) || st.Front != nil || st.Length != 3 {
		t.Fatalf("status: %+v", st)
	}
	until, err := b.Extend(ctx, "B", z.ID, time.Minute)
	if err != nil || until.Sub(now()) < 119*time.Second {
		t.Fatalf("extend: %v %v", until, err)
	}
	mu.Lock()
	clk.add(1100 * time.Millisecond)
	mu.Unlock()
	if st, _ := b.Status(ctx); st.Counts != (Counts{Queued: 1, Claimed: 2}) || st.Front == nil || st.Front.ID != x.ID {
		t.Fatalf("status after A's lease: %+v", st)
	}
	var got *Item
	_ = testkit.Poll(5*time.Second, 50*time.Millisecond, func() error {
		if got, _ = b.Next(ctx, "B", time.Minute); got == nil {
			return errors.New("nothing redelivered")
		}
		return nil
	})
	if got == nil || got.ID != x.ID {
		t.Fatalf("x not redelivered to B: %+v", got)
	}
	refusal(t, a.Complete(ctx, "A", x.ID, nil), ErrNotHolder)
	for _, id := range []string{x.ID, y.ID, z.ID} {
		if err := b.Complete(ctx, "B", id, json.RawMessage(`{"ok":true}`)); err != nil {
			t.Fatal(id, err)
		}
	}
	if st, _ := a.Status(ctx); st.Counts != (Counts{Done: 3}) || st.Length != 0 {
		t.Fatalf("status at the end: %+v", st)
	}

	// rate limit: shared by both connections
	a.Take(ctx, "Gemini", "ctx_get")
	b.Take(ctx, "Gemini", "ctx_get")
	lim, err := a.Take(ctx, "Gemini", "ctx_get")
	if err != nil || lim == nil || *lim != (RateLimited{Error: "rate_limited", Code: 429, Tool: "ctx_get", Limit: 2, Remaining: 0, ResetSec: 60, Scope: "Gemini"}) {
		t.Fatalf("429: %+v %v", lim, err)
	}
}
