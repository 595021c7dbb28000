package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/agent/scripted"
	"github.com/autarch-dev/autarch/fleet"
)

// TestFleetThroughput measures runs per minute for 1, 2 and 3 workers
// (six quick workflows, each model step answered after 1 s). It is a
// measurement, not a check: AUTARCH_FLEET_BENCH=1 runs it.
func TestFleetThroughput(t *testing.T) {
	if os.Getenv("AUTARCH_FLEET_BENCH") == "" {
		t.Skip("a measurement of a few minutes: set AUTARCH_FLEET_BENCH=1")
	}
	bin := buildBinary(t)
	const runs = 6
	for workers := 1; workers <= 3; workers++ {
		elapsed := fleetRound(t, bin, workers, runs)
		t.Logf("%d worker(s): %d runs in %v: %.1f runs/min", workers, runs, elapsed.Round(100*time.Millisecond), float64(runs)/elapsed.Minutes())
	}
}

// fleetRound runs n quick workflows on k workers and returns the time from
// the first submit to the last completion.
func fleetRound(t *testing.T, bin string, k, n int) time.Duration {
	_, urls := natsCluster(t, 1)
	_, remote, _ := fleetRepo(t)
	router := &modelRouter{t: t, cur: map[int]int{}, ids: map[string]int{}, last: map[string]int{}, scripts: map[int][]*scripted.Server{}}
	for i := range n {
		var steps []string
		for _, s := range quickSteps(fmt.Sprintf("F%d", i), fmt.Sprintf("f%d.go", i)) {
			steps = append(steps, `{"delay_ms": 1000, `+strings.TrimPrefix(s, "{"))
		}
		router.scripts[i] = []*scripted.Server{mustScript(t, steps...)}
	}
	hs := httptest.NewServer(router)
	defer hs.Close()
	defer router.check()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	f := openFleetWith(ctx, t, urls[0], fleet.Options{})
	router.fleet = f
	var procs []*exec.Cmd
	for w := range k {
		name := fmt.Sprintf("w%d", w+1)
		cmd := fleetEnv(t, autarchCmd(ctx, bin, t.TempDir(), hs.URL+"/"+name+"/v1", "worker", "--nats", urls[0], "--dir", t.TempDir(), "--name", name), t.TempDir())
		var log bytes.Buffer
		cmd.Stderr = &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	defer func() {
		for _, p := range procs {
			p.Process.Signal(syscall.SIGTERM)
			p.Wait()
		}
	}()
	start := time.Now()
	var ids []string
	for i := range n {
		r, err := f.Submit(ctx, fleet.Spec{Kind: fleet.Workflow, Repo: remote, Name: fmt.Sprintf("f%d", i), Path: "quick", Yes: true, Task: fmt.Sprintf("Add F%d [fleet-%d]", i, i)})
		if err != nil {
			t.Fatal(err)
		}
		router.register(r.ID, i)
		ids = append(ids, r.ID)
	}
	for {
		done := 0
		for _, id := range ids {
			r, err := f.Get(ctx, id)
			if err == nil && r.State == fleet.Completed {
				done++
			} else if err == nil && r.State.Ended() {
				t.Fatalf("run %s ended %s: %s\n%s", id, r.State, r.Reason, runEvents(f, id))
			}
		}
		if done == n {
			return time.Since(start)
		}
		if ctx.Err() != nil {
			t.Fatal("the runs did not complete in time")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
