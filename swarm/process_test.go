package swarm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/autarch-dev/autarch/internal/testkit"
)

// The test binary doubles as a second autarch process: with
// SWARM_HELPER set, TestHelperProcess runs one step against the swarm of
// SWARM_STATE (or SWARM_URL) and prints its answers as JSON lines.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("SWARM_HELPER")
	if mode == "" {
		t.Skip("run by the multi-process tests")
	}
	ctx := context.Background()
	if mode == "mem" {
		measureMemory(ctx, json.NewEncoder(os.Stdout))
		os.Exit(0)
	}
	c, err := Connect(ctx, ConnOptions{StateDir: os.Getenv("SWARM_STATE"), URL: os.Getenv("SWARM_URL")})
	if err != nil {
		fmt.Println(`{"fatal":` + strconv.Quote(err.Error()) + `}`)
		os.Exit(3)
	}
	limits, _ := ParseLimits(os.Getenv("SWARM_RATE"))
	s, err := Open(ctx, c, "t", Options{Limits: limits})
	if err != nil {
		fmt.Println(`{"fatal":` + strconv.Quote(err.Error()) + `}`)
		os.Exit(3)
	}
	out := json.NewEncoder(os.Stdout)
	arg := os.Getenv("SWARM_ARG")
	agent := os.Getenv("SWARM_AGENT")
	switch mode {
	case "increment": // arg increments of ctx key "counter" with if_version
		n, _ := strconv.Atoi(arg)
		conflicts := 0
		for i := 0; i < n; {
			e, err := s.Get(ctx, "counter")
			if err != nil {
				out.Encode(map[string]any{"fatal": err.Error()})
				os.Exit(3)
			}
			var v int
			json.Unmarshal(e.Value, &v)
			mode, exp := ModeIfVersion, e.Version
			if e.Version == 0 {
				mode = ModeIfAbsent
			}
			r, err := s.Put(ctx, "counter", json.RawMessage(strconv.Itoa(v+1)), mode, exp)
			if err != nil {
				out.Encode(map[string]any{"fatal": err.Error()})
				os.Exit(3)
			}
			if !r.OK {
				conflicts++
				continue
			}
			i++
		}
		out.Encode(map[string]any{"conflicts": conflicts})
	case "next":
		d, _ := time.ParseDuration(arg)
		it, err := s.Next(ctx, agent, d)
		out.Encode(map[string]any{"item": it, "err": errString(err)})
	case "complete":
		err := s.Complete(ctx, agent, arg, json.RawMessage(`{"ok":true}`))
		out.Encode(map[string]any{"err": err})
	case "take":
		n, _ := strconv.Atoi(arg)
		for range n {
			r, err := s.Take(ctx, agent, "fs_read")
			out.Encode(map[string]any{"limited": r, "err": errString(err)})
		}
	case "fill-and-hang": // fill the swarm, report, then wait to be killed
		for i := range 50 {
			if _, err := s.Enqueue(ctx, "work", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))); err != nil {
				out.Encode(map[string]any{"fatal": err.Error()})
				os.Exit(3)
			}
			s.Put(ctx, fmt.Sprintf("K.%d", i), json.RawMessage(strconv.Itoa(i)), "", 0)
		}
		for range 5 {
			s.Next(ctx, agent, time.Hour)
		}
		it, _ := s.Next(ctx, agent, 500*time.Millisecond)
		out.Encode(map[string]any{"ready": true, "hosting": c.Hosting(), "short": it})
		select {}
	}
	c.Close()
	os.Exit(0)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// helper starts this test binary as another process running mode.
func helper(t testing.TB, env map[string]string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	test := "TestHelperProcess"
	if env["SWARM_NATS"] != "" {
		test = "TestHelperNATS"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(stdout)
}

// run runs a helper to its end and returns its JSON lines.
func run(t testing.TB, env map[string]string) []map[string]any {
	t.Helper()
	cmd, sc := helper(t, env)
	var lines []map[string]any
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "{") {
			continue // the test framework's own output
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("helper %v: %s", env, sc.Text())
		}
		if m["fatal"] != nil {
			t.Fatalf("helper %v: %v", env, m["fatal"])
		}
		lines = append(lines, m)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper %v: %v", env, err)
	}
	return lines
}

func TestTwoProcessesCAS(t *testing.T) {
	state := t.TempDir()
	c, s := open(t, state, Options{})
	if !c.Hosting() {
		t.Fatal("the first user does not host the server")
	}
	var wg sync.WaitGroup
	results := make([][]map[string]any, 2)
	for i, agent := range []string{"A", "B"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = run(t, map[string]string{"SWARM_HELPER": "increment", "SWARM_STATE": state, "SWARM_ARG": "100", "SWARM_AGENT": agent})
		}()
	}
	wg.Wait()
	e, err := s.Get(context.Background(), "counter")
	if err != nil || string(e.Value) != "200" {
		t.Fatalf("counter = %s (%v), want 200: an update was lost", e.Value, err)
	}
	t.Logf("conflicts: A %v, B %v", results[0][0]["conflicts"], results[1][0]["conflicts"])
}

func TestLeaseAcrossProcesses(t *testing.T) {
	state := t.TempDir()
	_, s := open(t, state, Options{})
	ctx := context.Background()
	it, err := s.Enqueue(ctx, "scan", nil)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"SWARM_HELPER": "next", "SWARM_STATE": state, "SWARM_ARG": "2s", "SWARM_AGENT": "A"}
	got := run(t, env)[0]["item"].(map[string]any)
	if got["id"] != it.ID || got["claimed_by"] != "A" {
		t.Fatalf("A's next: %v", got)
	}
	until, _ := time.Parse(time.RFC3339Nano, got["lease_until"].(string))
	n, err := s.Next(ctx, "B", time.Minute)
	if err != nil || n != nil && time.Now().Before(until.Add(-100*time.Millisecond)) {
		t.Fatalf("B got a leased item: %+v %v", n, err)
	}
	_ = testkit.Poll(5*time.Second, 100*time.Millisecond, func() error {
		if n == nil {
			if n, err = s.Next(ctx, "B", time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		if n == nil {
			return errors.New("nothing redelivered")
		}
		return nil
	})
	if n == nil || n.ID != it.ID || n.ClaimedBy != "B" {
		t.Fatalf("not redelivered to B after A's lease: %+v", n)
	}
	late := run(t, map[string]string{"SWARM_HELPER": "complete", "SWARM_STATE": state, "SWARM_ARG": it.ID, "SWARM_AGENT": "A"})[0]["err"].(map[string]any)
	if late["error"] != ErrNotHolder || late["code"] != 409.0 || late["claimed_by"] != "B" {
		t.Fatalf("A's late complete: %v", late)
	}
	if err := s.Complete(ctx, "B", it.ID, nil); err != nil {
		t.Fatal(err)
	}
}

func TestRateLimitAcrossProcesses(t *testing.T) {
	state := t.TempDir()
	_, s := open(t, state, Options{Limits: Limits{Default: Limit{Calls: 3, Per: time.Minute}}})
	env := map[string]string{"SWARM_HELPER": "take", "SWARM_STATE": state, "SWARM_ARG": "2", "SWARM_AGENT": "Gemini", "SWARM_RATE": "3/1m"}
	for _, l := range run(t, env) {
		if l["limited"] != nil {
			t.Fatalf("limited early: %v", l)
		}
	}
	if r, err := s.Take(context.Background(), "Gemini", "fs_read"); err != nil || r != nil {
		t.Fatalf("third call: %+v %v", r, err)
	}
	r, err := s.Take(context.Background(), "Gemini", "fs_read")
	if err != nil || r == nil || r.Remaining != 0 || r.Limit != 3 || r.Code != 429 || r.ResetSec < 59 || r.ResetSec > 60 {
		t.Fatalf("fourth call: %+v %v", r, err)
	}
}

// TestKilledHost: the process hosting the server is killed (SIGKILL)
// mid-work; another user's connection takes the server over on the same
// file store and nothing is lost: items, leases, context.
func TestKilledHost(t *testing.T) {
	state := t.TempDir()
	cmd, sc := helper(t, map[string]string{"SWARM_HELPER": "fill-and-hang", "SWARM_STATE": state, "SWARM_AGENT": "A"})
	var ready map[string]any
	for sc.Scan() {
		if json.Unmarshal(sc.Bytes(), &ready) == nil && ready["ready"] == true {
			break
		}
	}
	if ready["hosting"] != true {
		t.Fatalf("the helper does not host: %v", ready)
	}
	shortID := ready["short"].(map[string]any)["id"].(string)
	c, s := open(t, state, Options{}) // joins the helper's server
	if c.Hosting() {
		t.Fatal("two hosts")
	}
	ctx := context.Background()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var st Status
	var err error
	_ = testkit.Poll(10*time.Second, 100*time.Millisecond, func() error {
		st, err = s.Status(ctx)
		return err
	})
	if err != nil {
		t.Fatalf("no status after the host died: %v", err)
	}
	if !c.Hosting() {
		t.Fatal("the surviving user did not take the server over")
	}
	if st.Counts.Done != 0 || st.Counts.Queued+st.Counts.Claimed != 50 || st.Counts.Claimed < 5 || st.Counts.Claimed > 6 {
		t.Fatalf("after the kill: %+v (want 50 items, 5 leased for an hour and maybe 1 for 500ms)", st.Counts)
	}
	for i := range 50 {
		e, err := s.Get(ctx, fmt.Sprintf("K.%d", i))
		if err != nil || string(e.Value) != strconv.Itoa(i) {
			t.Fatalf("K.%d = %s %v", i, e.Value, err)
		}
	}
	// the short lease ends: its item comes back; then the rest in order
	seen := map[string]bool{}
	_ = testkit.Poll(10*time.Second, 100*time.Millisecond, func() error {
		for len(seen) < 45 {
			it, err := s.Next(ctx, "B", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			if it == nil {
				return fmt.Errorf("%d items leased", len(seen))
			}
			if seen[it.ID] {
				t.Fatalf("%s leased twice", it.ID)
			}
			seen[it.ID] = true
		}
		return nil
	})
	if len(seen) != 45 || !seen[shortID] {
		t.Fatalf("B leased %d items (want the 44 never leased and the expired one %s: %v)", len(seen), shortID, seen[shortID])
	}
	if it, _ := s.Next(ctx, "B", time.Hour); it != nil {
		t.Fatalf("an hour-leased item was given out: %+v", it)
	}
}
