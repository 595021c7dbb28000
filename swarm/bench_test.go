package swarm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pair opens the swarm twice on one state dir: host (the process's
// embedded server) and peer (another connection, as a second process
// would, over its unix socket).
func pair(b *testing.B) (host, peer *Swarm) {
	dir := b.TempDir()
	c1, s1 := open(b, dir, Options{Limits: Limits{Default: Limit{Calls: 0}}})
	c2, s2 := open(b, dir, Options{Limits: Limits{Default: Limit{Calls: 0}}})
	if !c1.Hosting() || c2.Hosting() {
		b.Fatal("want one host and one peer")
	}
	return s1, s2
}

// latencies reports p50 and p99 of the timed operations.
func latencies(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	if len(ds) == 0 {
		return
	}
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), "p99-µs")
}

// onBothConnections runs op b.N times on the host's embedded connection
// and on a peer's socket connection, and reports op's latencies.
func onBothConnections(b *testing.B, op func(b *testing.B, s *Swarm, i int)) {
	host, peer := pair(b)
	for _, v := range []struct {
		name string
		s    *Swarm
	}{{"embedded", host}, {"socket", peer}} {
		b.Run(v.name, func(b *testing.B) {
			ds := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				op(b, v.s, i)
				ds = append(ds, time.Since(start))
			}
			latencies(b, ds)
		})
	}
}

func BenchmarkCtxPutGet(b *testing.B) {
	ctx := context.Background()
	val := json.RawMessage(`{"ok":true,"task":"scan","data":["a.py","b.py"],"ts":"2025-01-01T12:00:00Z","agent":"Gemini"}`)
	onBothConnections(b, func(b *testing.B, s *Swarm, i int) {
		key := "Gemini.k" + strconv.Itoa(i%100)
		if _, err := s.Put(ctx, key, val, ModeSet, 0); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Get(ctx, key); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkQueueRoundTrip(b *testing.B) {
	ctx := context.Background()
	onBothConnections(b, func(b *testing.B, s *Swarm, _ int) {
		if _, err := s.Enqueue(ctx, "scan", json.RawMessage(`{"dir":"docs"}`)); err != nil {
			b.Fatal(err)
		}
		it, err := s.Next(ctx, "A", time.Minute)
		if err != nil || it == nil {
			b.Fatal(it, err)
		}
		if err := s.Complete(ctx, "A", it.ID, json.RawMessage(`{"ok":true}`)); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkFourAgents: 1,000 items, 4 agents (one on the host's
// connection, three on their own socket connections) take and complete
// them until the queue is empty.
func BenchmarkFourAgents(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	var agents []*Swarm
	for range 4 {
		_, s := open(b, dir, Options{Limits: Limits{Default: Limit{Calls: 0}}})
		agents = append(agents, s)
	}
	const items = 1000
	for b.Loop() {
		b.StopTimer()
		for i := range items {
			if _, err := agents[0].Enqueue(ctx, "work", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		var done atomic.Int64
		var wg sync.WaitGroup
		for i, s := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				agent := "A" + strconv.Itoa(i)
				for {
					it, err := s.Next(ctx, agent, time.Minute)
					if err != nil {
						b.Error(err)
						return
					}
					if it == nil {
						return
					}
					if err := s.Complete(ctx, agent, it.ID, json.RawMessage(`{}`)); err != nil {
						b.Error(err)
						return
					}
					done.Add(1)
				}
			}()
		}
		wg.Wait()
		if done.Load() != items {
			b.Fatalf("completed %d of %d", done.Load(), items)
		}
	}
	b.ReportMetric(float64(items*b.N)/b.Elapsed().Seconds(), "items/s")
}

// BenchmarkStartup: a fresh project's first Connect + Open (the embedded
// server started, its streams created), and a restart on the existing
// file store.
func BenchmarkStartup(b *testing.B) {
	start := func(b *testing.B, dir func() string) {
		ctx := context.Background()
		for b.Loop() {
			c, err := Connect(ctx, ConnOptions{StateDir: dir()})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Open(ctx, c, "t", Options{}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			c.Close()
			b.StartTimer()
		}
	}
	b.Run("fresh", func(b *testing.B) { start(b, b.TempDir) })
	b.Run("restart", func(b *testing.B) {
		dir := b.TempDir()
		c, _ := open(b, dir, Options{})
		c.Close()
		start(b, func() string { return dir })
	})
}

// BenchmarkServerMemory: the heap and resident memory the embedded
// server adds to a fresh process, idle and after 1,000 items and 1,000
// context keys (measured in a helper process, see TestHelperProcess "mem").
func BenchmarkServerMemory(b *testing.B) {
	var m map[string]any
	for b.Loop() {
		m = run(b, map[string]string{"SWARM_HELPER": "mem", "SWARM_STATE": b.TempDir()})[0]
	}
	for _, k := range []string{"idle-heap-MB", "idle-rss-MB", "loaded-heap-MB", "loaded-rss-MB"} {
		b.ReportMetric(m[k].(float64), k)
	}
}

// measureMemory is the "mem" helper: Connect starts the server here.
func measureMemory(ctx context.Context, out *json.Encoder) {
	heap0, rss0 := memNow()
	c, err := Connect(ctx, ConnOptions{StateDir: os.Getenv("SWARM_STATE")})
	if err != nil {
		out.Encode(map[string]any{"fatal": err.Error()})
		return
	}
	defer c.Close()
	s, err := Open(ctx, c, "t", Options{Limits: Limits{Default: Limit{Calls: 0}}})
	if err != nil {
		out.Encode(map[string]any{"fatal": err.Error()})
		return
	}
	heap1, rss1 := memNow()
	for i := range 1000 {
		s.Enqueue(ctx, "work", json.RawMessage(`{"n":1}`))
		s.Put(ctx, "K."+strconv.Itoa(i), json.RawMessage(`{"ok":true,"data":"some finding text of a typical size"}`), "", 0)
	}
	heap2, rss2 := memNow()
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	out.Encode(map[string]any{"idle-heap-MB": mb(heap1 - heap0), "idle-rss-MB": mb(rss1 - rss0),
		"loaded-heap-MB": mb(heap2 - heap0), "loaded-rss-MB": mb(rss2 - rss0)})
}

// memNow is the live heap after a GC and the process's resident set.
func memNow() (heap, rss int64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	data, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			rss = kb << 10
		}
	}
	return int64(m.HeapAlloc), rss
}
